import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { client, createWorkspace, newWorkspace, startTestApp, type TestApp } from '../helpers/app.ts';
import { newTicket } from '../helpers/api.ts';
import { askApproval } from '../helpers/approvals.ts';

/**
 * docs/observability.md: every request gets an id and one JSON log line, credentials never reach
 * the logs, and GET /metrics (METRICS_TOKEN) serves process and HTTP metrics next to what the
 * database says. Runs the real app on the test database, its log lines captured.
 */
const lines: string[] = [];
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' },
    logger: createLogger('info', (line) => lines.push(line)),
  });
});
afterAll(() => app?.close());

const requestLines = () => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');

describe('each request', () => {
  it('gets an id, answered in X-Request-Id, and one log line with method, route, status, duration and that id', async () => {
    const { ws, api } = await newWorkspace(app);
    const created = await api.post('/api/v1/tickets', newTicket());
    expect(created.status).toBe(201);
    const fetched = await api.get(`/api/v1/tickets/${created.body.data.id}`);
    expect(fetched.status).toBe(200);
    const requestId = fetched.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.headers.get('x-request-id')).not.toBe(requestId);

    const line = requestLines().find((l) => l.requestId === requestId);
    expect(line).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/api/v1/tickets/:id',
      path: `/api/v1/tickets/${created.body.data.id}`,
      status: 200,
      requestId,
    });
    expect(line.durationMs).toBeGreaterThan(0);
    expect(requestLines().filter((l) => l.requestId === requestId)).toHaveLength(1);
  });

  it("keeps the caller's X-Request-Id when it is sane, and logs failed requests with their status", async () => {
    const { ws, api } = await newWorkspace(app);
    const res = await api.get('/api/v1/tickets/00000000-0000-4000-8000-000000000000', { 'x-request-id': 'trace-7f3a:step/2' });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('trace-7f3a:step/2');
    expect(requestLines().find((l) => l.requestId === 'trace-7f3a:step/2')).toMatchObject({ route: '/api/v1/tickets/:id', status: 404 });

    const long = await api.get('/api/v1/tickets', { 'x-request-id': 'x'.repeat(200) });
    expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const denied = await client(app.baseUrl, 'dfk_not_a_real_key').get('/api/workflows');
    expect(denied.status).toBe(401);
    expect(requestLines().find((l) => l.requestId === denied.headers.get('x-request-id'))).toMatchObject({ method: 'GET', route: '/api/workflows', status: 401 });
  });

  it('never writes the Authorization header, the API key or the metrics token to the log', async () => {
    const { ws, api } = await newWorkspace(app);
    await api.post('/api/v1/tickets', newTicket());
    await api.get('/api/v1/tickets');
    await client(app.baseUrl, 'dfk_wrong_key_value').get('/api/v1/tickets');
    await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
    await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: 'Bearer wrong-scrape-token' } });
    const text = lines.join('\n');
    expect(requestLines().length).toBeGreaterThanOrEqual(5);
    for (const secret of [ws.key, 'dfk_wrong_key_value', 'scrape-secret', 'wrong-scrape-token']) expect(text).not.toContain(secret);
    expect(text.toLowerCase()).not.toContain('authorization');
  });
});

describe('GET /metrics', () => {
  async function scrape(): Promise<string> {
    const res = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  }

  it('has the HTTP duration histogram by route template and status', async () => {
    const { ws, api } = await newWorkspace(app);
    const created = await api.post('/api/v1/tickets', newTicket());
    await api.get(`/api/v1/tickets/${created.body.data.id}`);
    await api.get('/api/v1/tickets/00000000-0000-4000-8000-000000000000');
    const text = await scrape();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/tickets\/:id",status="200"\} \d+$/m);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/v1\/tickets\/:id",status="404"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/tickets",status="201"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_request_duration_seconds_sum\{method="GET",route="\/api\/v1\/tickets\/:id",status="200"\} [\d.e-]+$/m);
    // Ids never become labels.
    expect(text).not.toContain(created.body.data.id);
  });

  it('has process, heap, GC and event-loop metrics', async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_heap_space_size_used_bytes',
      'nodejs_gc_duration_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('has executions by status, the outbox backlog and its lag, and loop-guard stops', async () => {
    const ws = await createWorkspace(app.orm);
    await client(app.baseUrl, ws.key).post('/api/v1/tickets', newTicket());
    const text = await scrape();
    for (const status of ['pending', 'running', 'completed', 'failed', 'cancelled']) {
      expect(text).toMatch(new RegExp(`^deskflow_executions\\{status="${status}"\\} \\d+$`, 'm'));
    }
    // No relay runs in this app: the ticket's event waits, so the backlog has an age.
    expect(Number(/^deskflow_outbox_undelivered (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^deskflow_outbox_oldest_undelivered_seconds ([\d.e-]+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^# TYPE deskflow_loop_guard_stops_total counter$/m);
    expect(text).toMatch(/^deskflow_loop_guard_stops_total \d+$/m);
  });
  it('has the approvals runs wait for that nobody has decided yet', async () => {
    const { ws, api } = await newWorkspace(app, [{ userId: 'alice' }, { userId: 'bob' }]);
    await askApproval(app.orm, api, ws.workspaceId);
    const decided = await askApproval(app.orm, api, ws.workspaceId);
    await askApproval(app.orm, api, ws.workspaceId);
    expect((await api.post(`/api/approvals/${decided.approvalId}/decision`, { userId: 'alice', decision: 'approve' })).status).toBe(200);
    const text = await scrape();
    expect(text).toMatch(/^# TYPE deskflow_approvals_pending gauge$/m);
    // The database's count, of every workspace: at least this workspace's two.
    expect(Number(/^deskflow_approvals_pending (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('has the age of the oldest AI owner wake-up Temporal has not taken: tickets waiting for ai show from the outside', async () => {
    const ws = await createWorkspace(app.orm);
    const em = app.orm.em.fork();
    const id = randomUUID();
    await em.execute(
      `insert into ai_wakeups (id, workspace_id, ticket_id, kind, reason, created_at) values (?, ?, ?, 'wake', 'assigned to ai', now() - interval '10 minutes')`,
      [id, ws.workspaceId, randomUUID()],
    );
    try {
      const text = await scrape();
      expect(text).toMatch(/^# TYPE deskflow_ai_wakeups_oldest_undelivered_seconds gauge$/m);
      expect(Number(/^deskflow_ai_wakeups_oldest_undelivered_seconds ([\d.e+-]+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(600);
    } finally {
      await em.execute('delete from ai_wakeups where id = ?', [id]);
    }
  });

  it('has the age of the oldest pending execution, from the database: a run that never starts shows from the outside', async () => {
    const { ws, api } = await newWorkspace(app);
    const workflow = (await api.post('/api/workflows', { name: 'Never started', triggerType: 'manual' })).body.workflow;
    // A pending execution two days old: what a namespace that refuses every start leaves behind.
    const executionId = randomUUID();
    const em = app.orm.em.fork();
    await em.execute(
      `insert into executions (id, workspace_id, workflow_id, workflow_version, status, triggered_by, context, run_id, started_at)
       values (?, ?, ?, 1, 'pending', 'manual', '{}', ?, now() - interval '2 days')`,
      [executionId, ws.workspaceId, workflow.id, `workflow-${workflow.id}/manual-${executionId}`],
    );
    try {
      const text = await scrape();
      expect(text).toMatch(/^# TYPE deskflow_executions_oldest_pending_seconds gauge$/m);
      expect(Number(/^deskflow_executions_oldest_pending_seconds ([\d.e+-]+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(2 * 86_400);
    } finally {
      await em.execute('delete from executions where id = ?', [executionId]);
    }
  });
});
