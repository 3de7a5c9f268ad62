import { performance } from 'node:perf_hooks';
import type { Environment } from './environment.ts';
import {
  automationBurst,
  automationsAtRate,
  createTicket,
  waitForRuns,
  withBenchWorkflow,
  type BurstFigures,
  type SteadyFigures,
} from './engine/automations.ts';
import { measureBaselines, type Baselines } from './engine/baseline.ts';
import { cpuCostOf, dbCost, describeCpu, dbCounters, scrapeSdk, sdkCost, serverPids, stagesOf, type CpuCost, type DbCost, type SdkCost, type Stages } from './engine/cost.ts';
import { clearOutbox, unfinishedExecutions } from './engine/observe.ts';
import { HttpClient, sleep } from './load.ts';
import { freePort } from '../test/helpers/ports.ts';
import type { Child, RssSampler } from './processes.ts';
import type { Profile } from './profile.ts';
import { sampleTickets } from './seed.ts';

export type WorkerStart = {
  /** Spawn → the worker's "Deskflow worker running" line. */
  readyMs: number;
  /** Spawn → completed_at of the automation of a ticket created right after the spawn. */
  firstAutomationMs: number;
};

export type EngineFigures = {
  workerStart: WorkerStart;
  /** After a SIGKILL of the worker: crash → automations again. */
  workerRestart: WorkerStart;
  burst: BurstFigures;
  sustained: SteadyFigures;
  latency: SteadyFigures;
  baselines: Baselines & { deskflowBacklogAtStart: number };
  /** What an execution of the burst cost, and where its time went. */
  cost: { cpu: CpuCost; sdk: SdkCost; db: DbCost; stages: Stages };
  rss: { workerIdleMb: number | null; workerPeakMb: number | null; workerAfterLoadMb: number | null; apiPeakMb: number | null };
};

/**
 * The automation engine: Deskflow's worker process (`node src/server.ts worker`) started and
 * timed, the 3-node automation under a burst, a sustained rate and a low rate, the baselines
 * on the same Temporal server, and a crash and restart of the worker.
 */
export async function measureEngine(
  profile: Profile,
  env: Environment,
  target: { apiPort: number; apiPid: number; key: string; workspaceId: string },
  sampler: RssSampler,
  progress: (line: string) => void,
): Promise<EngineFigures> {
  const api = new HttpClient({ port: target.apiPort, key: target.key });
  let worker: Child | undefined;
  try {
    // Events of the request measures belong to a workspace without workflows; as in steady
    // state, the worker starts on an empty outbox.
    await clearOutbox(env.db);

    const metricsPort = await freePort();
    const first = await withBenchWorkflow(api, () => startWorker(env, api, 'worker', 0, metricsPort));
    worker = first.child;
    sampler.watch('worker', worker);
    progress(`  worker: ready after ${seconds(first.start.readyMs)}, first automation done ${seconds(first.start.firstAutomationMs)} after spawn`);
    await sleep(2_000);
    const workerIdleMb = worker.rssMb();

    const loadStarted = performance.now();
    const burstTickets: string[] = [];
    const sdkBefore = await scrapeSdk(metricsPort);
    const dbBefore = await dbCounters(env.db);
    const { result: burst, cost: cpu } = await cpuCostOf(
      { worker: worker.pid, api: target.apiPid, ...serverPids() },
      () => withBenchWorkflow(api, () => automationBurst(profile, api, env.db, target.workspaceId, burstTickets)),
      (b) => b.completed,
    );
    const cost = {
      cpu,
      sdk: sdkCost(sdkBefore, await scrapeSdk(metricsPort), burst.completed),
      db: dbCost(dbBefore, await dbCounters(env.db), burst.completed),
      stages: await stagesOf(env.db, burstTickets),
    };
    progress(
      `  burst of ${burst.tickets}: ${burst.executionsPerSecond.toFixed(1)} executions/s (API took them in ${burst.apiSeconds.toFixed(1)} s), ` +
        `outbox lag max ${burst.outboxLagMaxMs} ms${unfinished(burst)}`,
    );
    progress(`  cost per execution: ${describeCost(cost)}`);
    const sustained = await withBenchWorkflow(api, () =>
      automationsAtRate(profile, api, env.db, target.workspaceId, profile.sustainedRate, profile.sustainedMs),
    );
    progress(
      `  ${profile.sustainedRate} tickets/s for ${profile.sustainedMs / 1000} s: completed at ${sustained.completionRate.toFixed(1)}/s, ` +
        `outbox lag ${sustained.outbox.firstQuarterMs} → ${sustained.outbox.lastQuarterMs} ms (max ${sustained.outbox.maxMs})${unfinished(sustained)}`,
    );
    const latency = await withBenchWorkflow(api, () => automationsAtRate(profile, api, env.db, target.workspaceId, profile.latencyRate, profile.latencyMs));
    progress(`  ${profile.latencyRate} tickets/s: ticket → completed p50 ${latency.latency.p50Ms} ms, p99 ${latency.latency.p99Ms} ms${unfinished(latency)}`);
    const loadEnded = performance.now();
    const workerAfterLoadMb = worker.rssMb();

    const tickets = await sampleTickets(env.db, target.workspaceId, 200);
    const backlog = await unfinishedExecutions(env.db, target.workspaceId);
    if (backlog > 0) progress(`  ${backlog} Deskflow executions still unfinished: the baselines share the machine with them`);
    const baselines = { ...(await measureBaselines(profile, env, tickets.map((t) => t.id), progress)), deskflowBacklogAtStart: backlog };

    await worker.crash();
    const again = await withBenchWorkflow(api, () => startWorker(env, api, 'worker-restarted', 1));
    worker = again.child;
    sampler.watch('worker', worker);
    progress(`  worker after SIGKILL: ready after ${seconds(again.start.readyMs)}, first automation done ${seconds(again.start.firstAutomationMs)} after spawn`);

    return {
      workerStart: first.start,
      workerRestart: again.start,
      burst,
      sustained,
      latency,
      baselines,
      cost,
      rss: {
        workerIdleMb,
        workerPeakMb: sampler.peak('worker', loadStarted, loadEnded),
        workerAfterLoadMb,
        apiPeakMb: sampler.peak('api', loadStarted, loadEnded),
      },
    };
  } finally {
    api.close();
    await worker?.stop();
  }
}

/** Spawns `node src/server.ts worker` and creates a ticket at once, whose automation tells when the worker really works. */
async function startWorker(env: Environment, api: HttpClient, name: string, probe: number, metricsPort?: number): Promise<{ child: Child; start: WorkerStart }> {
  const spawnedAt = Date.now();
  const child = env.spawnNode(name, env.serverArgs('worker'), env.deskflowEnv(metricsPort ? { TEMPORAL_METRICS_PORT: String(metricsPort) } : {}));
  const ticketId = await createTicket(api, probe);
  const readyMs = await child.waitForLine(/Deskflow worker running/, 180_000);
  const [run] = await waitForRuns(env.db, [ticketId], 180_000);
  if (run?.status !== 'completed' || !run.completedAt) throw new Error(`the automation of the probe ticket did not complete (status ${run?.status}):\n${child.tail()}`);
  return { child, start: { readyMs, firstAutomationMs: run.completedAt.getTime() - spawnedAt } };
}

/** "worker 12 ms · api 3.1 ms · …; 1.0 workflow task of 4.2 ms, 4.0 local activities of 2.1 ms; relay 80 ms → first action …". */
export function describeCost(c: EngineFigures['cost']): string {
  const cpu = describeCpu(c.cpu.msPerExecution);
  const s = c.sdk;
  const t = c.stages;
  return (
    `CPU ${cpu}; ${s.workflowTasksPerExecution.toFixed(1)} workflow tasks of ${s.workflowTaskMs.toFixed(1)} ms, ` +
    `${s.localActivitiesPerExecution.toFixed(1)} local activities of ${s.localActivityMs.toFixed(1)} ms; ` +
    `PostgreSQL ${c.db.transactionsPerExecution.toFixed(1)} transactions, ${c.db.rowsWrittenPerExecution.toFixed(1)} rows written; ` +
    `p50 relay ${t.relayP50Ms} ms → first action ${t.toFirstActionP50Ms} ms → done ${t.actionsP50Ms} ms`
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function unfinished(r: { unfinished: number; failed: number; backlogAtStart: number }): string {
  const notes = [
    r.backlogAtStart > 0 ? `began with ${r.backlogAtStart} executions of the measure before unfinished` : '',
    r.unfinished > 0 ? `${r.unfinished} not finished in time` : '',
    r.failed > 0 ? `${r.failed} FAILED` : '',
  ].filter(Boolean);
  return notes.length ? ` (${notes.join(', ')})` : '';
}
