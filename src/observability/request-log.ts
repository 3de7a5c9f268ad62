import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import type { ProcessMetrics } from './metrics.ts';

/** An incoming X-Request-Id is kept when it is short and printable (visible ASCII, no spaces). */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The outermost middleware: gives each request an id (the caller's `X-Request-Id` when sane,
 * else a new UUID), answers it in `X-Request-Id`, and once the answer is settled writes one log
 * line (`msg: "request"` with method, route template, path, status, durationMs, requestId) and
 * observes the duration in `http_request_duration_seconds` by method, route template and status.
 * Requests that match no route are labelled `route="unmatched"`, so the labels stay few.
 * Successful probes (`/healthz`, `/readyz`, `/metrics`) are logged at debug level only.
 * Headers are never logged.
 */
export function requestLog(logger: Logger, metrics: ProcessMetrics) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(ctx);
      const status = ctx.status;
      metrics.httpDuration.observe({ method: ctx.method, route, status: String(status) }, seconds);
      // Probes and scrapes answer every few seconds: their successes only at debug level.
      const level = PROBES.has(route) && status < 400 ? 'debug' : 'info';
      logger[level]('request', {
        method: ctx.method,
        route,
        path: ctx.path,
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        requestId,
      });
    }
  };
}

/** Routes that load balancers, orchestrators and scrapers call on a timer. */
const PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

type RouteLayer = { path: string | RegExp; methods: string[] };

/**
 * The template of the route that matched the request (`/api/v1/tickets/:id`), from the layers
 * the routers matched. Not `ctx._matchedRoute`: each middleware layer of a router (the API key
 * check) overwrites that with its own pattern as it runs, so a request it refuses would carry it.
 */
function routeTemplate(ctx: Context): string {
  const layers = (ctx as Context & { matched?: RouteLayer[] }).matched ?? [];
  const route = layers.findLast((layer) => layer.methods.includes(ctx.method) && typeof layer.path === 'string');
  return route ? (route.path as string) : 'unmatched';
}
