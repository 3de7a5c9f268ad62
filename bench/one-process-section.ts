import { performance } from 'node:perf_hooks';
import type { Environment } from './environment.ts';
import { automationBurst, createTicket, withBenchWorkflow, type BurstFigures } from './engine/automations.ts';
import { closedLoop, HttpClient, openLoop, sleep, type LoadResult } from './load.ts';
import type { RssSampler } from './processes.ts';
import type { Profile } from './profile.ts';
import { freePort } from '../test/helpers/ports.ts';

export type OneProcessFigures = {
  /** create ticket, closed loop: the maximum. */
  createMax: LoadResult;
  /** create ticket, open loop at half of that maximum: the latency a team sees. */
  createHalfRate: LoadResult;
  halfRate: number;
  burst: BurstFigures;
  /** Idle before, the highest sample during the burst, and `profile.settleMs` after it. */
  rss: { idleMb: number | null; peakMb: number | null; afterBurstMb: number | null };
};

/**
 * Deskflow as `npm start` runs it: one process with the API, the relay and the worker (plus the
 * embedded servers, here the bench's own). Creates at the maximum and at half of it, while the
 * relay delivers their events on the same event loop; then a burst of automations, and the
 * process's memory afterwards.
 */
export async function measureOneProcess(
  profile: Profile,
  env: Environment,
  target: { key: string; workspaceId: string },
  sampler: RssSampler,
  progress: (line: string) => void,
): Promise<OneProcessFigures> {
  const port = await freePort();
  const child = env.spawnNode('one-process', env.serverArgs('all'), env.deskflowEnv({ PORT: String(port) }));
  const api = new HttpClient({ port, key: target.key });
  try {
    await Promise.all([child.waitForLine(/Deskflow API listening/, 180_000), child.waitForLine(/Deskflow worker running/, 180_000)]);
    sampler.watch('one-process', child);
    await sleep(1_000);
    const idleMb = child.rssMb();
    progress(`  npm start's process up (pid ${child.pid}, ${idleMb?.toFixed(0)} MB)`);

    const create = async (i: number) => void (await createTicket(api, i));
    const createMax = await closedLoop({ op: create, concurrency: profile.concurrency, durationMs: profile.measureMs, warmupMs: profile.warmupMs });
    const halfRate = Math.max(1, createMax.rps / 2);
    const createHalfRate = await openLoop({ op: create, rate: halfRate, durationMs: profile.halfRateMs * profile.rounds, warmupMs: profile.warmupMs });
    progress(
      `  create ticket: max ${createMax.rps.toFixed(0)}/s (p99 ${createMax.p99Ms.toFixed(0)} ms); ` +
        `at ${halfRate.toFixed(0)}/s p50 ${createHalfRate.p50Ms.toFixed(1)} ms, p99 ${createHalfRate.p99Ms.toFixed(1)} ms`,
    );

    const from = performance.now();
    const burst = await withBenchWorkflow(api, () => automationBurst(profile, api, env.db, target.workspaceId));
    const peakMb = sampler.peak('one-process', from);
    // The heap grown by the burst is given back once the process is idle for a while (V8's
    // memory reducer): what stays is what the process keeps.
    await sleep(profile.settleMs);
    const afterBurstMb = child.rssMb();
    progress(`  burst of ${burst.tickets}: ${burst.executionsPerSecond.toFixed(1)} executions/s; RSS ${idleMb?.toFixed(0)} MB idle, ${peakMb?.toFixed(0)} MB at most, ${afterBurstMb?.toFixed(0)} MB ${profile.settleMs / 1000} s after`);
    return { createMax, createHalfRate, halfRate, burst, rss: { idleMb, peakMb, afterBurstMb } };
  } finally {
    api.close();
    await child.stop();
  }
}
