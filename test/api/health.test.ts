import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createWorkspace, newTicket, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('operational endpoints', () => {
  it('answer /healthz and /readyz without a key', async () => {
    const api = client(app.baseUrl);
    expect(await api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await api.get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok' } } });
  });

  it('answer /readyz with 503 naming the dependency that does not answer', async () => {
    const down = await startTestApp({ readiness: [{ name: 'temporal', check: async () => Promise.reject(new Error('connection refused')) }] });
    try {
      const res = await client(down.baseUrl).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'unavailable', details: [{ path: 'temporal', message: 'connection refused' }] });
    } finally {
      await down.close();
    }
  });

  it('expose Prometheus metrics of the outbox and executions without a key', async () => {
    const ws = await createWorkspace(app.orm);
    await client(app.baseUrl, ws.key).post('/api/v1/tickets', newTicket());
    const res = await fetch(`${app.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    // No relay runs in this app, so the ticket's event is still waiting.
    expect(Number(/^deskflow_outbox_undelivered (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^deskflow_loop_guard_stops_total \d+$/m);
    expect(text).toMatch(/^deskflow_executions\{status="completed"\} \d+$/m);
  });
});
