import { describe, expect, it } from 'vitest';
import { client, createWorkspace, startTestApp, useTestApp } from '../helpers/app.ts';
import { newTicket } from '../helpers/api.ts';

const app = useTestApp();

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

  it('answer /readyz with 503 from the moment shutdown begins, while the API still answers', async () => {
    let stopping = false;
    const draining = await startTestApp({ stopping: () => stopping });
    try {
      const api = client(draining.baseUrl);
      expect((await api.get('/readyz')).status).toBe(200);
      stopping = true;
      const res = await api.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'unavailable', message: 'Not ready: shutting down.' });
      expect(await api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await draining.close();
    }
  });

  it('serve Prometheus metrics of the outbox and executions to the bearer of METRICS_TOKEN only', async () => {
    const metered = await startTestApp({ config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' } });
    try {
      const ws = await createWorkspace(metered.orm);
      await client(metered.baseUrl, ws.key).post('/api/v1/tickets', newTicket());
      const scrape = (authorization?: string) => fetch(`${metered.baseUrl}/metrics`, { headers: authorization ? { authorization } : {} });
      for (const wrong of [undefined, 'Bearer nope', `Bearer ${ws.key}`, 'scrape-secret']) {
        const denied = await scrape(wrong);
        expect(denied.status, String(wrong)).toBe(401);
        expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
      const res = await scrape('Bearer scrape-secret');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      // No relay runs in this app, so the ticket's event is still waiting.
      expect(Number(/^deskflow_outbox_undelivered (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
      expect(text).toMatch(/^deskflow_loop_guard_stops_total \d+$/m);
      expect(text).toMatch(/^deskflow_executions\{status="completed"\} \d+$/m);
    } finally {
      await metered.close();
    }
  });

  it('do not serve /metrics when no METRICS_TOKEN is set', async () => {
    const res = await client(app.baseUrl).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
