import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { connectTemporal } from '../../temporal/client.ts';
import type { Environment } from '../environment.ts';
import { cpuMeter } from '../cpu.ts';
import { burst, openLoop, sleep, type LoadResult } from '../load.ts';
import type { Profile } from '../profile.ts';
import { describeCpu, perUnit, serverPids } from './cost.ts';

export type BaselineFigures = {
  /** Runs completed / (last completion − first start); runs not done within the drain timeout are terminated. */
  burst: { runs: number; completed: number; seconds: number; perSecond: number; cpuMsPerRun: Record<string, number | null> };
  /** Start → result, started at the rate of the Deskflow latency measure. */
  latency: LoadResult;
};

export type Baselines = { doNothing: BaselineFigures; activityPerAction: BaselineFigures };

/**
 * Plain Temporal workflows on the same server, run by a bench-only worker process on a task
 * queue of their own, with the same load shapes as Deskflow's automations: a burst of
 * `profile.burst` runs started as fast as the server takes them, then runs started at the
 * latency measure's rate.
 */
export async function measureBaselines(
  profile: Profile,
  env: Environment,
  ticketIds: string[],
  progress: (line: string) => void,
): Promise<Baselines> {
  const taskQueue = `${env.taskQueue}-baseline`;
  const worker = env.spawnNode('baseline-worker', ['bench/engine/baseline-worker.ts'], {
    ...process.env,
    TEMPORAL_ADDRESS: env.temporal.address,
    TEMPORAL_NAMESPACE: env.temporal.namespace,
    BENCH_TASK_QUEUE: taskQueue,
    DATABASE_URL: env.databaseUrl,
    POOL_MAX: String(env.poolMax),
  });
  const connection = await connectTemporal(env.temporal);
  try {
    await worker.waitForLine(/^ready$/, 120_000);
    const client = new Client({ connection, namespace: env.temporal.namespace });
    const tag = randomBytes(3).toString('hex');
    const runs = {
      doNothing: (i: number) => client.workflow.start('doNothing', { taskQueue, workflowId: `bench-${tag}-nothing-${i}`, args: [] }),
      activityPerAction: (i: number) =>
        client.workflow.start('activityPerAction', {
          taskQueue,
          workflowId: `bench-${tag}-actions-${i}`,
          args: [{ ticketId: ticketIds[i % ticketIds.length], subject: 'Bench ticket: printer error E-42' }],
        }),
    };
    const figures = {} as Baselines;
    for (const kind of ['doNothing', 'activityPerAction'] as const) {
      const start = runs[kind];
      const meter = cpuMeter({ worker: worker.pid, ...serverPids() });
      const began = performance.now();
      const handles: WorkflowHandle[] = [];
      const starts = await burst({ concurrency: profile.concurrency, count: profile.burst, op: async (i) => void handles.push(await start(i)) });
      if (starts.errors > 0) throw new Error(`starting ${kind} runs failed: ${starts.firstError}`);
      let last = began;
      let completed = 0;
      const done = handles.map((h) => h.result().then(() => ((completed += 1), (last = Math.max(last, performance.now())))));
      await Promise.race([Promise.allSettled(done), sleep(profile.drainTimeoutMs)]);
      // Stragglers would weigh on the next measure: end them (they are the bench's own runs).
      if (completed < handles.length) await Promise.all(handles.map((h) => h.terminate('past the bench drain timeout').catch(() => {})));
      await Promise.allSettled(done);
      const seconds = (last - began) / 1000;
      const cpuMsPerRun = perUnit(meter.end(), completed);
      const latency = await openLoop({
        rate: profile.latencyRate,
        durationMs: profile.latencyMs,
        op: async (i) => void (await withTimeout((await start(profile.burst + i)).result(), profile.drainTimeoutMs)),
      });
      figures[kind] = { burst: { runs: handles.length, completed, seconds, perSecond: seconds > 0 ? completed / seconds : 0, cpuMsPerRun }, latency };
      progress(
        `  ${kind === 'doNothing' ? 'do-nothing workflow' : 'one activity per action'}: burst of ${handles.length} ${figures[kind].burst.perSecond.toFixed(1)}/s` +
          `${completed < handles.length ? ` (${handles.length - completed} not done in time)` : ''}; ` +
          `at ${profile.latencyRate}/s start→done p50 ${latency.p50Ms.toFixed(0)} ms p99 ${latency.p99Ms.toFixed(0)} ms; ` +
          `CPU per run ${describeCpu(cpuMsPerRun)}`,
      );
    }
    return figures;
  } finally {
    await connection.close();
    await worker.stop();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
