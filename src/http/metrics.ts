import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import type { MikroORM } from '@mikro-orm/postgresql';
import { unauthorized } from '../errors.ts';
import { operation } from './operation.ts';
import type { AppState } from './state.ts';

/**
 * GET /metrics in Prometheus text format, for the operator's scraper (`Authorization: Bearer
 * METRICS_TOKEN`; served only when that is set, since every endpoint needs credentials and the
 * counts span all workspaces). Read from the database, so it is the same whichever process
 * answers: the outbox backlog, executions by status, and deliveries the loop guard stopped
 * (docs/contract.md §5).
 */
export function metricsRoutes(orm: MikroORM, token: string): Router<AppState> {
  const router = new Router<AppState>();
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const expected = digest(`Bearer ${token}`);
  const metrics = operation({
    operationId: 'metrics',
    summary: 'Prometheus metrics (served only when METRICS_TOKEN is set)',
    tag: 'Service',
    security: 'metricsToken',
    responses: { 200: { description: 'Outbox backlog, executions by status, loop-guard stops.', schema: z.string(), contentType: 'text/plain; version=0.0.4' } },
    errors: ['unauthorized'],
  });
  router.get('/metrics', metrics, async (ctx) => {
    if (!timingSafeEqual(digest(ctx.get('authorization')), expected)) {
      throw unauthorized('The metrics token is required: send "Authorization: Bearer <METRICS_TOKEN>".');
    }
    const em = orm.em.fork();
    const [outbox, executions] = await Promise.all([
      em.execute<Array<{ undelivered: string; loop_guarded: string; oldest_age: string | null }>>(
        `select count(*) filter (where delivered_at is null) as undelivered,
                count(*) filter (where last_error like 'loop guard:%') as loop_guarded,
                extract(epoch from now() - min(created_at) filter (where delivered_at is null)) as oldest_age
           from outbox_events`,
      ),
      em.execute<Array<{ status: string; count: string }>>(`select status, count(*) as count from executions group by status`),
    ]);
    const lines = [
      '# HELP deskflow_outbox_undelivered Events waiting for delivery to the workflow engine.',
      '# TYPE deskflow_outbox_undelivered gauge',
      `deskflow_outbox_undelivered ${Number(outbox[0].undelivered)}`,
      '# HELP deskflow_outbox_oldest_undelivered_seconds Age of the oldest undelivered event.',
      '# TYPE deskflow_outbox_oldest_undelivered_seconds gauge',
      `deskflow_outbox_oldest_undelivered_seconds ${Number(outbox[0].oldest_age ?? 0)}`,
      '# HELP deskflow_loop_guard_stops_total Events whose delivery the loop guard stopped for at least one workflow.',
      '# TYPE deskflow_loop_guard_stops_total counter',
      `deskflow_loop_guard_stops_total ${Number(outbox[0].loop_guarded)}`,
      '# HELP deskflow_executions Executions by status.',
      '# TYPE deskflow_executions gauge',
      ...['pending', 'running', 'completed', 'failed', 'cancelled'].map(
        (status) => `deskflow_executions{status="${status}"} ${Number(executions.find((r) => r.status === status)?.count ?? 0)}`,
      ),
    ];
    ctx.type = 'text/plain; version=0.0.4';
    ctx.body = lines.join('\n') + '\n';
  });
  return router;
}
