import type pg from 'pg';
import { cpuMeter, descendantNamed } from '../cpu.ts';

/**
 * What one execution costs, so that the next step is visible: CPU per process (Deskflow's
 * worker with its relay, the API, PostgreSQL, the Temporal server), the worker's workflow tasks
 * and local activities as its Temporal SDK counts them, and where an execution's time went
 * between the ticket and its end, read from Deskflow's own records.
 */
export type CpuCost = {
  executions: number;
  /** CPU ms per execution, by process; null where the process is not the bench's (a DATABASE_URL, a TEMPORAL_ADDRESS). */
  msPerExecution: Record<string, number | null>;
};

export type SdkCost = {
  workflowTasksPerExecution: number;
  workflowTaskMs: number;
  localActivitiesPerExecution: number;
  localActivityMs: number;
};

/** PostgreSQL's own counts for the database, per execution: transactions (a statement alone is one) and rows written. */
export type DbCost = { transactionsPerExecution: number; rowsWrittenPerExecution: number };

type DbCounters = { xacts: number; written: number };

/** The database's transaction and row counters (pg_stat_database; updated by each backend at its transaction ends). */
export async function dbCounters(db: pg.Pool): Promise<DbCounters> {
  const { rows } = await db.query<{ xacts: string; written: string }>(
    `select xact_commit + xact_rollback as xacts, tup_inserted + tup_updated + tup_deleted as written
       from pg_stat_database where datname = current_database()`,
  );
  return { xacts: Number(rows[0]?.xacts ?? 0), written: Number(rows[0]?.written ?? 0) };
}

export function dbCost(before: DbCounters, after: DbCounters, executions: number): DbCost {
  const per = (x: number) => (executions > 0 ? x / executions : 0);
  return { transactionsPerExecution: per(after.xacts - before.xacts), rowsWrittenPerExecution: per(after.written - before.written) };
}

export type Stages = {
  /** ticket created → its event delivered and the execution created (the relay's claim). */
  relayP50Ms: number;
  /** execution created → its first action began: the start on Temporal, the run's first workflow task, beginRun. */
  toFirstActionP50Ms: number;
  /** running → completed (the actions and finishRun). */
  actionsP50Ms: number;
};

/** The server processes the bench started: its embedded PostgreSQL, its Temporal dev server. */
export function serverPids(): { postgres: number | null; temporal: number | null } {
  return { postgres: descendantNamed(process.pid, 'postgres'), temporal: descendantNamed(process.pid, 'temporal') };
}

/** CPU ms per unit of work (an execution, a run) by process, from the ms each used; null where unknown. */
export function perUnit(used: Record<string, number | null>, units: number): Record<string, number | null> {
  return Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms === null || units === 0 ? null : ms / units]));
}

/** "worker 12.3 ms · api 2.1 ms · postgres —". */
export function describeCpu(msPer: Record<string, number | null>, format = (ms: number) => `${ms.toFixed(1)} ms`): string {
  return Object.entries(msPer)
    .map(([name, ms]) => `${name} ${ms === null ? '—' : format(ms)}`)
    .join(' · ');
}

/** Measures CPU of the given process trees around `work`, per execution it reports done. */
export async function cpuCostOf<T>(pids: Record<string, number | null>, work: () => Promise<T>, executions: (result: T) => number): Promise<{ result: T; cost: CpuCost }> {
  const meter = cpuMeter(pids);
  const result = await work();
  const used = meter.end();
  const n = executions(result);
  return { result, cost: { executions: n, msPerExecution: perUnit(used, n) } };
}

/** Sums of the SDK's Prometheus series, by metric name (labels summed over). */
export async function scrapeSdk(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m) sums.set(m[1], (sums.get(m[1]) ?? 0) + Number(m[2]));
  }
  return sums;
}

export function sdkCost(before: Map<string, number>, after: Map<string, number>, executions: number): SdkCost {
  const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  const per = (a: number, b: number) => (b > 0 ? a / b : 0);
  const wft = delta('temporal_workflow_task_execution_latency_count');
  const la = delta('temporal_local_activity_execution_latency_count');
  return {
    workflowTasksPerExecution: per(wft, executions),
    workflowTaskMs: per(delta('temporal_workflow_task_execution_latency_sum'), wft),
    localActivitiesPerExecution: per(la, executions),
    localActivityMs: per(delta('temporal_local_activity_execution_latency_sum'), la),
  };
}

/** Medians of each stage of the given tickets' executions, from the tickets, executions and steps tables. */
export async function stagesOf(db: pg.Pool, ticketIds: string[]): Promise<Stages> {
  const { rows } = await db.query<{ relay: number; first: number; actions: number }>(
    `select percentile_cont(0.5) within group (order by extract(epoch from e.started_at - t.created_at)) * 1000 as relay,
            percentile_cont(0.5) within group (order by extract(epoch from s.first_action - e.started_at)) * 1000 as first,
            percentile_cont(0.5) within group (order by extract(epoch from e.completed_at - s.first_action)) * 1000 as actions
       from executions e
       join tickets t on t.id = e.ticket_id
       join lateral (select min(started_at) as first_action from execution_steps where execution_id = e.id and node_id in ('tag', 'raise')) s on true
      where e.ticket_id = any($1) and e.status = 'completed'`,
    [ticketIds],
  );
  const r = rows[0];
  const ms = (x: number | null) => Math.round(Math.max(0, Number(x ?? 0)));
  return { relayP50Ms: ms(r?.relay), toFirstActionP50Ms: ms(r?.first), actionsP50Ms: ms(r?.actions) };
}
