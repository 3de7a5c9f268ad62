import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { burst, HttpClient, openLoop, sleep, type LoadResult } from '../load.ts';
import type { Profile } from '../profile.ts';
import { newTicketBody } from '../scenarios.ts';
import { activateWorkflow, openTicket } from '../../test/helpers/api.ts';
import { printerTickets } from '../../test/helpers/graphs.ts';
import { isFinished, outboxLag, ticketRuns, unfinishedExecutions, type TicketRun } from './observe.ts';

// Deskflow's engine end to end: tickets go in through the API, and the database tells when
// their automation finished. The graph is the 3-node one of test/helpers/graphs.ts: condition
// (subject contains "printer") → add_tag ∥ set_priority.

/**
 * Runs `measure` with the bench workflow active, then deletes the workflow, which cancels
 * whatever executions of it are still unfinished: each measure has a workflow of its own and
 * leaves no work behind for the next (beyond cancellations the worker may still be ending).
 */
export async function withBenchWorkflow<T>(api: HttpClient, measure: () => Promise<T>): Promise<T> {
  const workflowId = await activateWorkflow(api, printerTickets());
  try {
    return await measure();
  } finally {
    await api.call({ method: 'DELETE', path: `/api/workflows/${workflowId}`, expect: 204 });
  }
}

export async function createTicket(api: HttpClient, i: number): Promise<string> {
  return openTicket(api, newTicketBody(i));
}

export type LagSample = { atMs: number; lagMs: number; waiting: number };

/** Samples the outbox lag every `everyMs` until stopped. */
export function watchOutbox(db: pg.Pool, everyMs = 250) {
  const samples: LagSample[] = [];
  const started = performance.now();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { lagMs, waiting } = await outboxLag(db).catch(() => ({ lagMs: NaN, waiting: NaN }));
      if (!Number.isNaN(lagMs)) samples.push({ atMs: Math.round(performance.now() - started), lagMs: Math.round(lagMs), waiting });
      await sleep(everyMs);
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** Polls until every ticket's execution finished or the timeout passed; returns the last reading. */
export async function waitForRuns(db: pg.Pool, ticketIds: string[], timeoutMs: number): Promise<TicketRun[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const runs = await ticketRuns(db, ticketIds);
    if (runs.filter(isFinished).length === ticketIds.length || performance.now() > deadline) return runs;
    await sleep(200);
  }
}

export type RunSummary = {
  /**
   * Executions of earlier measures still unfinished when this one began: when not 0, this
   * measure shared the engine with them and its figures are too low.
   */
  backlogAtStart: number;
  tickets: number;
  completed: number;
  /** Failed or cancelled: the harness or Deskflow is broken, the figures are not to be trusted. */
  failed: number;
  /** Not finished within the drain timeout. */
  unfinished: number;
  /** Completed executions / (last completed_at − first ticket created_at). */
  executionsPerSecond: number;
  /** Completed executions over the span between the first and the last completion. */
  completionRate: number;
  /** ticket created_at → execution completed_at. */
  latency: { p50Ms: number; p99Ms: number; maxMs: number };
};

export function summarize(runs: TicketRun[], backlogAtStart: number): RunSummary {
  const done = runs.filter((r) => r.status === 'completed' && r.completedAt);
  const latencies = done.map((r) => r.completedAt!.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
  const firstCreated = Math.min(...runs.map((r) => r.createdAt.getTime()));
  const completions = done.map((r) => r.completedAt!.getTime());
  const lastCompleted = Math.max(...completions);
  const firstCompleted = Math.min(...completions);
  return {
    backlogAtStart,
    tickets: runs.length,
    completed: done.length,
    failed: runs.filter((r) => r.status === 'failed' || r.status === 'cancelled').length,
    unfinished: runs.filter((r) => !isFinished(r)).length,
    executionsPerSecond: done.length > 0 ? done.length / ((lastCompleted - firstCreated) / 1000) : 0,
    completionRate: done.length > 1 && lastCompleted > firstCompleted ? (done.length - 1) / ((lastCompleted - firstCompleted) / 1000) : 0,
    latency: { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies.at(-1) ?? 0 },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Median of the lag samples in [from, to) of the window (fractions), for "does the lag grow". */
export function lagBetween(samples: LagSample[], windowMs: number, from: number, to: number): number {
  const inside = samples.filter((s) => s.atMs >= from * windowMs && s.atMs < to * windowMs).map((s) => s.lagMs).sort((a, b) => a - b);
  return percentile(inside, 50);
}

export type BurstFigures = RunSummary & { apiSeconds: number; outboxLagMaxMs: number };

/** `profile.burst` tickets as fast as the API takes them (their ids go to `ids`), then until their automations finished. */
export async function automationBurst(profile: Profile, api: HttpClient, db: pg.Pool, workspaceId: string, ids: string[] = []): Promise<BurstFigures> {
  const backlog = await unfinishedExecutions(db, workspaceId);
  const outbox = watchOutbox(db);
  try {
    const load: LoadResult = await burst({ concurrency: profile.concurrency, count: profile.burst, op: async (i) => void ids.push(await createTicket(api, i)) });
    if (load.errors > 0) throw new Error(`creating the burst's tickets failed: ${load.firstError}`);
    const runs = await waitForRuns(db, ids, profile.drainTimeoutMs);
    const samples = await outbox.stop();
    return { ...summarize(runs, backlog), apiSeconds: load.seconds, outboxLagMaxMs: Math.max(0, ...samples.map((s) => s.lagMs)) };
  } finally {
    await outbox.stop();
  }
}

export type SteadyFigures = RunSummary & {
  offeredRate: number;
  seconds: number;
  load: LoadResult;
  outbox: { samples: LagSample[]; firstQuarterMs: number; lastQuarterMs: number; maxMs: number; growing: boolean };
};

/** Tickets at a constant rate for a while, then until their automations finished (or the drain timeout). */
export async function automationsAtRate(
  profile: Profile,
  api: HttpClient,
  db: pg.Pool,
  workspaceId: string,
  rate: number,
  durationMs: number,
): Promise<SteadyFigures> {
  const backlog = await unfinishedExecutions(db, workspaceId);
  const ids: string[] = [];
  const outbox = watchOutbox(db);
  let samples: LagSample[];
  let runs: TicketRun[];
  let load: LoadResult;
  try {
    load = await openLoop({ rate, durationMs, op: async (i) => void ids.push(await createTicket(api, i)) });
    if (load.errors > 0) throw new Error(`creating tickets at ${rate}/s failed: ${load.firstError}`);
    samples = [...outbox.samples];
    runs = await waitForRuns(db, ids, profile.drainTimeoutMs);
  } finally {
    await outbox.stop();
  }
  const firstQuarterMs = lagBetween(samples, durationMs, 0, 0.25);
  const lastQuarterMs = lagBetween(samples, durationMs, 0.75, 1);
  return {
    ...summarize(runs, backlog),
    offeredRate: rate,
    seconds: durationMs / 1000,
    load,
    outbox: {
      samples,
      firstQuarterMs,
      lastQuarterMs,
      maxMs: Math.max(0, ...samples.map((s) => s.lagMs)),
      // Growing: the lag at the end of the window is well above the lag at its start.
      growing: lastQuarterMs > Math.max(2 * firstQuarterMs, firstQuarterMs + 500),
    },
  };
}
