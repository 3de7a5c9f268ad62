import { ceilingPool } from './ceiling-sql.ts';
import { closedLoop, HttpClient, openLoop, Recorder, type LoadResult, type Op } from './load.ts';
import type { Profile } from './profile.ts';
import type { Scenario } from './scenarios.ts';

/** One target's figures for one request: the closed-loop maximum and the open loop at half of Deskflow's maximum. */
export type TargetFigures = { max: LoadResult; halfRate: LoadResult };

export type RequestFigures = {
  id: string;
  label: string;
  /** Requests/s of the open-loop measures: half of Deskflow's maximum. */
  halfRate: number;
  deskflow: TargetFigures;
  /** The same SQL through pg in the bench process, no HTTP. */
  sql: TargetFigures;
  /** A bare node:http server running that SQL. */
  bareHttp: TargetFigures;
};

export type HttpTargets = { apiPort: number; barePort: number; key: string; databaseUrl: string; poolMax: number };

/**
 * Each request on Deskflow, on its raw-SQL ceiling and on the bare-HTTP ceiling with the same
 * load generator and concurrency: first the closed-loop maximum, then an open loop at half of
 * Deskflow's maximum for the latency a service that is not overloaded shows. The targets take
 * turns in short rounds, so that other work on the machine weighs on all three alike.
 */
export async function measureRequests(
  profile: Profile,
  targets: HttpTargets,
  list: Scenario[],
  progress: (line: string) => void,
): Promise<RequestFigures[]> {
  const db = ceilingPool(targets.databaseUrl, targets.poolMax, 60_000);
  const api = new HttpClient({ port: targets.apiPort, key: targets.key });
  const bare = new HttpClient({ port: targets.barePort, key: targets.key });
  try {
    const figures: RequestFigures[] = [];
    for (const scenario of list) {
      const ops: Record<Target, Op> = {
        deskflow: async (i) => void (await api.call(scenario.http(i))),
        sql: (i) => scenario.sql(db, i),
        bareHttp: async (i) => void (await bare.call(scenario.http(i))),
      };
      const max = await inRounds(profile, async (target, round, recorder) => {
        const warmupMs = round === 0 ? profile.warmupMs : ROUND_WARMUP_MS;
        await closedLoop({ op: ops[target], concurrency: profile.concurrency, durationMs: profile.measureMs / profile.rounds, warmupMs, recorder });
      }, profile.measureMs);
      for (const target of TARGETS) progress(line(scenario.label, target, `max (${profile.concurrency} callers)`, max[target]));
      const halfRate = Math.max(1, max.deskflow.rps / 2);
      const half = await inRounds(profile, async (target, round, recorder) => {
        const warmupMs = round === 0 ? profile.warmupMs : ROUND_WARMUP_MS;
        await openLoop({ op: ops[target], rate: halfRate, durationMs: profile.halfRateMs / profile.rounds, warmupMs, recorder });
      }, profile.halfRateMs);
      for (const target of TARGETS) progress(line(scenario.label, target, `at ${halfRate.toFixed(0)}/s`, half[target]));
      figures.push({
        id: scenario.id,
        label: scenario.label,
        halfRate,
        deskflow: { max: max.deskflow, halfRate: half.deskflow },
        sql: { max: max.sql, halfRate: half.sql },
        bareHttp: { max: max.bareHttp, halfRate: half.bareHttp },
      });
    }
    return figures;
  } finally {
    api.close();
    bare.close();
    await db.end();
  }
}

type Target = 'deskflow' | 'sql' | 'bareHttp';
const TARGETS: Target[] = ['deskflow', 'sql', 'bareHttp'];
/** Later rounds only wait for the callers (or the rate) to get going again. */
const ROUND_WARMUP_MS = 200;

/** Runs `profile.rounds` rounds of every target in turn, each recording into the target's own recorder. */
async function inRounds(
  profile: Profile,
  run: (target: Target, round: number, recorder: Recorder) => Promise<void>,
  totalMs: number,
): Promise<Record<Target, LoadResult>> {
  const recorders = { deskflow: new Recorder(), sql: new Recorder(), bareHttp: new Recorder() };
  for (let round = 0; round < profile.rounds; round++) {
    for (const target of TARGETS) await run(target, round, recorders[target]);
  }
  return {
    deskflow: recorders.deskflow.result(totalMs / 1000),
    sql: recorders.sql.result(totalMs / 1000),
    bareHttp: recorders.bareHttp.result(totalMs / 1000),
  };
}

const TARGET_NAMES = { deskflow: 'Deskflow', sql: 'SQL via pg', bareHttp: 'bare node:http' } as const;

export function line(what: string, target: Target, how: string, r: LoadResult): string {
  const errors = r.errors > 0 ? `  ${r.errors} errors (${r.firstError})` : '';
  return `  ${what.padEnd(24)} ${TARGET_NAMES[target].padEnd(15)} ${how.padEnd(19)} ${r.rps.toFixed(0).padStart(5)} req/s  p50 ${fmtMs(r.p50Ms)}  p99 ${fmtMs(r.p99Ms)}${errors}`;
}

export function fmtMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(1) : ms.toFixed(0)} ms`.padStart(8);
}
