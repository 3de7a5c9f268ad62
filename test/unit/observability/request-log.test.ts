import type { Context } from 'koa';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import type { ProcessMetrics } from '../../../src/observability/metrics.ts';
import { requestLog } from '../../../src/observability/request-log.ts';

/** A request as Koa hands it to the middleware, with what the router and the routes would leave on it. */
function fakeContext(request: { method: string; path: string; headers?: Record<string, string> }) {
  const answered: Record<string, string> = {};
  const ctx = {
    method: request.method,
    path: request.path,
    status: 404,
    state: {} as Record<string, unknown>,
    /** The layers the routers matched: middleware (no methods) and routes. */
    matched: [] as Array<{ path: string; methods: string[] }>,
    get: (name: string) => request.headers?.[name.toLowerCase()] ?? '',
    set: (name: string, value: string) => (answered[name] = value),
  };
  return { ctx, answered };
}

function setup(level: 'info' | 'debug' = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, (line) => lines.push(JSON.parse(line)));
  const registry = new Registry();
  const httpDuration = new Histogram({ name: 'http_request_duration_seconds', help: 'h', labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const metrics: ProcessMetrics = { registry, httpDuration };
  return { lines, registry, middleware: requestLog(logger, metrics) };
}

describe('the request log', () => {
  it('writes one line per request with method, route template, status, duration and request id, and answers the id', async () => {
    const { lines, registry, middleware } = setup();
    const { ctx, answered } = fakeContext({ method: 'GET', path: '/api/v1/tickets/abc', headers: { authorization: 'Bearer dfk_secret' } });
    await middleware(ctx as unknown as Context, async () => {
      ctx.matched.push({ path: '/api/v1/tickets(?:/|$)', methods: [] }, { path: '/api/v1/tickets/:id', methods: ['HEAD', 'GET'] }, { path: '/api/v1/tickets/:id', methods: ['PATCH'] });
      ctx.status = 200;
    });
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', route: '/api/v1/tickets/:id', path: '/api/v1/tickets/abc', status: 200 });
    expect(line.durationMs).toEqual(expect.any(Number));
    expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answered['X-Request-Id']).toBe(line.requestId);
    expect(ctx.state.requestId).toBe(line.requestId);
    expect(JSON.stringify(lines)).not.toContain('dfk_secret');
    const text = await registry.metrics();
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/v1/tickets/:id",status="200"} 1');
  });

  it('logs successful probes and scrapes at debug level only, and their failures at info', async () => {
    const probe = async (middleware: ReturnType<typeof setup>['middleware'], route: string, status: number) => {
      const { ctx } = fakeContext({ method: 'GET', path: route });
      await middleware(ctx as unknown as Context, async () => {
        ctx.matched.push({ path: route, methods: ['HEAD', 'GET'] });
        ctx.status = status;
      });
    };
    const atInfo = setup('info');
    for (const route of ['/healthz', '/readyz', '/metrics']) await probe(atInfo.middleware, route, 200);
    expect(atInfo.lines).toEqual([]);
    await probe(atInfo.middleware, '/readyz', 503);
    expect(atInfo.lines).toEqual([expect.objectContaining({ level: 'info', route: '/readyz', status: 503 })]);
    const atDebug = setup('debug');
    await probe(atDebug.middleware, '/healthz', 200);
    expect(atDebug.lines).toEqual([expect.objectContaining({ level: 'debug', route: '/healthz', status: 200 })]);
    // Still measured, whatever the log level.
    expect(await atInfo.registry.metrics()).toContain('http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 1');
  });

  it('keeps a sane incoming X-Request-Id and replaces one that is too long or not printable', async () => {
    const { lines, middleware } = setup();
    for (const incoming of ['req-42:abc/DEF_1.2', 'x'.repeat(129), 'has space', 'tab\there', 'ünicode', '']) {
      const { ctx, answered } = fakeContext({ method: 'POST', path: '/x', headers: { 'x-request-id': incoming } });
      await middleware(ctx as unknown as Context, async () => {});
      const kept = incoming === 'req-42:abc/DEF_1.2';
      expect(answered['X-Request-Id'] === incoming, incoming).toBe(kept);
      expect(lines.at(-1)!.requestId).toBe(answered['X-Request-Id']);
    }
  });

  it('logs and measures a request that matches no route as route "unmatched", and one whose handler throws with its final status', async () => {
    const { lines, registry, middleware } = setup();
    const unmatched = fakeContext({ method: 'GET', path: '/nowhere/123' });
    await middleware(unmatched.ctx as unknown as Context, async () => {});
    expect(lines.at(-1)).toMatchObject({ route: 'unmatched', status: 404, path: '/nowhere/123' });

    const failing = fakeContext({ method: 'PATCH', path: '/api/workflows/1' });
    await expect(
      middleware(failing.ctx as unknown as Context, async () => {
        failing.ctx.matched.push({ path: '/api/workflows/:id', methods: ['PATCH'] }, { path: '/api/workflows(?:/|$)', methods: [] });
        failing.ctx.status = 500;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(lines.at(-1)).toMatchObject({ route: '/api/workflows/:id', status: 500, method: 'PATCH' });
    const text = await registry.metrics();
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="PATCH",route="/api/workflows/:id",status="500"} 1');
  });
});
