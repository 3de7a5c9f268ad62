import Router from '@koa/router';
import { z } from 'zod';
import type { MikroORM } from '@mikro-orm/postgresql';
import { operation } from './operation.ts';
import type { AppState } from './state.ts';

/**
 * A dependency /readyz asks about. A check fails by throwing; an error with `details` (one
 * `{ path, message }` per problem, e.g. each missing search attribute) is reported with those
 * instead of its message alone.
 */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

type Outcome = 'ok' | { message: string; details?: Array<{ path: string; message: string }> };

const CHECK_TIMEOUT_MS = 3_000;

/** The database answers a trivial query. */
export const databaseCheck = (orm: MikroORM): ReadinessCheck => ({ name: 'database', check: async () => void (await orm.em.fork().execute('select 1')) });

/** Whether the check passes within `timeoutMs`. */
export async function passes(check: ReadinessCheck, timeoutMs = CHECK_TIMEOUT_MS): Promise<boolean> {
  return (await outcomeOf(check.check(), timeoutMs)) === 'ok';
}

/**
 * /healthz: the process is up. /readyz: the database (and any other dependency) answers, and
 * the process is not shutting down (it may still answer requests while it drains).
 */
export function healthRoutes(orm: MikroORM, extra: ReadinessCheck[], stopping: () => boolean = () => false): Router<AppState> {
  const router = new Router<AppState>();
  const checks: ReadinessCheck[] = [databaseCheck(orm), ...extra];

  const health = operation({
    operationId: 'health',
    summary: 'Liveness: the process is up',
    tag: 'Service',
    security: 'none',
    responses: { 200: { description: 'Up.', schema: z.strictObject({ status: z.literal('ok') }) } },
  });
  router.get('/healthz', health, (ctx) => {
    ctx.body = { status: 'ok' };
  });

  const ready = operation({
    operationId: 'readiness',
    summary: 'Readiness: the database and the workflow engine answer',
    tag: 'Service',
    security: 'none',
    responses: {
      200: { description: 'Ready.', schema: z.strictObject({ status: z.literal('ready'), checks: z.record(z.string(), z.literal('ok')) }) },
    },
    errors: ['unavailable'],
  });
  router.get('/readyz', ready, async (ctx) => {
    if (stopping()) {
      ctx.status = 503;
      ctx.body = {
        error: { code: 'unavailable', message: 'Not ready: shutting down.', details: [{ path: 'process', message: 'shutting down' }] },
      };
      return;
    }
    const results = await Promise.all(checks.map(async ({ name, check }) => [name, await outcomeOf(check())] as const));
    const failed = results.filter((r): r is [string, Exclude<Outcome, 'ok'>] => r[1] !== 'ok');
    if (failed.length === 0) {
      ctx.body = { status: 'ready', checks: Object.fromEntries(results) };
      return;
    }
    ctx.status = 503;
    ctx.body = {
      error: {
        code: 'unavailable',
        message: `Not ready: ${failed.map(([name]) => name).join(', ')} unavailable.`,
        details: failed.flatMap(([name, outcome]) => outcome.details ?? [{ path: name, message: outcome.message }]),
      },
    };
  });

  return router;
}

async function outcomeOf(p: Promise<void>, timeoutMs = CHECK_TIMEOUT_MS): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), timeoutMs)))]);
    return 'ok';
  } catch (err) {
    const details = (err as { details?: unknown }).details;
    return {
      message: err instanceof Error ? err.message.split('\n')[0] : 'failed',
      ...(Array.isArray(details) && details.length > 0 ? { details: details as Array<{ path: string; message: string }> } : {}),
    };
  } finally {
    clearTimeout(timer);
  }
}
