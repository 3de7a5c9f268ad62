import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { z } from 'zod';
import type { MikroORM } from '@mikro-orm/postgresql';
import { unauthorized } from '../errors.ts';
import { sql } from '../common/sql.ts';
import { countExecutionsByStatus } from '../executions/counts.ts';
import { EXECUTION_STATUSES } from '../executions/entity.ts';
import { SLA_METRICS } from '../sla/clock.ts';
import type { Logger } from '../logger.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';

export type ProcessMetrics = {
  registry: Registry;
  /** Observed once per request by src/observability/request-log.ts. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
};

let shared: ProcessMetrics | undefined;

/**
 * The metrics of this process, one set however many apps it builds: the process and Node.js
 * metrics of prom-client (CPU, memory, heap spaces, GC durations, event-loop lag, handles) and
 * the HTTP request durations.
 */
export function processMetrics(): ProcessMetrics {
  if (shared) return shared;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  shared = { registry, httpDuration };
  return shared;
}

export type MetricsOptions = {
  token: string;
  logger: Logger;
  /** The Temporal SDK's exporter of the worker in this process (`http://host:port/metrics`): its metrics are added. */
  temporalMetricsUrl?: string;
};

/**
 * GET /metrics in Prometheus text format, for the operator's scraper (`Authorization: Bearer
 * METRICS_TOKEN`; served only when that is set, since every endpoint needs credentials and the
 * counts span all workspaces). The process's own metrics, then what the database says, which
 * is the same whichever process answers (docs/contract.md §7): the outbox backlog and its lag,
 * executions by status, deliveries the loop guard stopped, approvals pending. Each read uses an index or a
 * counter table, never a scan of a whole table.
 */
export function metricsRoutes(orm: MikroORM, opts: MetricsOptions): Router<AppState> {
  const router = new Router<AppState>();
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const expected = digest(`Bearer ${opts.token}`);

  const own = new Registry();
  const undelivered = new Gauge({ name: 'deskflow_outbox_undelivered', help: 'Events waiting for delivery to the workflow engine.', registers: [own] });
  const lag = new Gauge({
    name: 'deskflow_outbox_oldest_undelivered_seconds',
    help: 'Relay lag: age of the oldest event waiting for delivery (0 when none waits).',
    registers: [own],
  });
  const loopGuard = new Counter({
    name: 'deskflow_loop_guard_stops_total',
    help: 'Events whose delivery the loop guard stopped for at least one workflow.',
    registers: [own],
  });
  const executions = new Gauge({ name: 'deskflow_executions', help: 'Executions by status.', labelNames: ['status'] as const, registers: [own] });
  const oldestPending = new Gauge({
    name: 'deskflow_executions_oldest_pending_seconds',
    help: 'Age of the oldest pending execution, one whose run has not begun (0 when none): it grows while runs cannot start.',
    registers: [own],
  });
  const approvalsPending = new Gauge({
    name: 'deskflow_approvals_pending',
    help: 'Approvals nobody has decided yet: those runs wait for (request_approval) and the AI owner\'s drafts (autoSend false).',
    registers: [own],
  });
  const breaches = new Counter({
    name: 'deskflow_sla_breaches_total',
    help: 'Service-level targets breached (sla_breached events written), by metric and priority.',
    labelNames: ['metric', 'priority'] as const,
    registers: [own],
  });
  const running = new Gauge({
    name: 'deskflow_sla_running_clocks',
    help: 'Service-level clocks counting now (targets not met and not paused, breached ones included), by metric.',
    labelNames: ['metric'] as const,
    registers: [own],
  });
  const aiWaiting = new Gauge({
    name: 'deskflow_ai_wakeups_oldest_undelivered_seconds',
    help: 'Age of the oldest AI owner wake-up Temporal has not taken yet (0 when none): it grows while tickets assigned to ai cannot be answered.',
    registers: [own],
  });
  const registry = Registry.merge([processMetrics().registry, own]);

  const refresh = async () => {
    const em = orm.em.fork();
    const [backlog, guarded, byStatus, pending, approvals, breached, counting, wakeups] = await Promise.all([
      // Both from the partial index outbox_events_undelivered_idx (only undelivered rows).
      sql<{ undelivered: string; oldest_age: string | null }>(
        em,
        `select count(*) as undelivered, extract(epoch from now() - min(created_at)) as oldest_age
           from outbox_events where delivered_at is null`,
      ),
      // The partial index outbox_events_loop_guard_idx holds only these rows.
      sql<{ count: string }>(em, `select count(*) as count from outbox_events where last_error like 'loop guard:%'`),
      countExecutionsByStatus(em),
      // The partial index executions_pending_idx holds only pending rows: one index read.
      sql<{ oldest_age: string | null }>(em, `select extract(epoch from now() - min(started_at)) as oldest_age from executions where status = 'pending'`),
      // The partial index approvals_pending_idx holds only pending rows.
      sql<{ count: string }>(em, `select count(*) as count from approvals where status = 'pending'`),
      // A counter table (a row per workspace, metric and priority), kept by the timers.
      sql<{ metric: string; priority: string; count: string }>(em, `select metric, priority, sum(count) as count from sla_breach_counts group by metric, priority`),
      // The partial index sla_targets_queue_idx holds only targets not met.
      sql<{ metric: string; count: string }>(em, `select metric, count(*) as count from sla_targets where fulfilled_at is null and status in ('active', 'breached') group by metric`),
      // The partial index ai_wakeups_undelivered_idx holds only these rows.
      sql<{ oldest_age: string | null }>(em, `select extract(epoch from now() - min(created_at)) as oldest_age from ai_wakeups where delivered_at is null`),
    ]);
    undelivered.set(Number(backlog[0].undelivered));
    lag.set(Math.max(0, Number(backlog[0].oldest_age ?? 0)));
    // A counter read from the database: set to the stored total.
    loopGuard.reset();
    loopGuard.inc(Number(guarded[0].count));
    for (const status of EXECUTION_STATUSES) executions.set({ status }, byStatus[status]);
    oldestPending.set(Math.max(0, Number(pending[0].oldest_age ?? 0)));
    approvalsPending.set(Number(approvals[0].count));
    breaches.reset();
    for (const { metric, priority, count } of breached) breaches.inc({ metric, priority }, Number(count));
    for (const metric of SLA_METRICS) running.set({ metric }, Number(counting.find((c) => c.metric === metric)?.count ?? 0));
    aiWaiting.set(Math.max(0, Number(wakeups[0].oldest_age ?? 0)));
  };

  const metrics = operation({
    operationId: 'metrics',
    summary: 'Prometheus metrics (served only when METRICS_TOKEN is set)',
    tag: 'Service',
    security: 'metricsToken',
    responses: {
      200: {
        description: 'Process, heap, GC and event-loop metrics; HTTP request durations; outbox backlog and lag, executions by status and the age of the oldest pending one, loop-guard stops, approvals waiting for a decision, the age of the oldest AI owner wake-up not yet taken; service-level breaches by metric and priority and the clocks running; the workflow worker\'s own metrics when it runs in this process.',
        schema: z.string(),
        contentType: 'text/plain; version=0.0.4',
      },
    },
    errors: ['unauthorized'],
  });
  router.get('/metrics', metrics, async (ctx) => {
    if (!timingSafeEqual(digest(ctx.get('authorization')), expected)) {
      throw unauthorized('The metrics token is required: send "Authorization: Bearer <METRICS_TOKEN>".');
    }
    await refresh();
    const [text, temporal] = await Promise.all([registry.metrics(), opts.temporalMetricsUrl ? scrape(opts.temporalMetricsUrl, opts.logger) : '']);
    ctx.type = 'text/plain; version=0.0.4';
    ctx.body = temporal ? `${text.trimEnd()}\n${temporal.trimEnd()}\n` : text;
  });
  return router;
}

/** The exporter's text, or nothing when it does not answer within 2 s (the rest is still served). */
async function scrape(url: string, logger: Logger): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return await res.text();
  } catch (err) {
    logger.warn('temporal worker metrics not read', { url, error: err instanceof Error ? err.message : String(err) });
    return '';
  }
}
