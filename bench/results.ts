import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { EngineFigures } from './engine-section.ts';
import type { RequestFigures } from './http-section.ts';
import type { ListPoint } from './list-section.ts';
import type { OneProcessFigures } from './one-process-section.ts';
import { repoRoot } from './processes.ts';
import type { Profile } from './profile.ts';

/** What one run of the bench measured, as written to bench/results/*.json, and the targets it is held to. */
export type Machine = {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  os: string;
  /** 1, 5 and 15 minute load averages when the run began: a busy machine gives lower figures. */
  loadAverage: number[];
  loadAverageAtEnd?: number[];
  commit: string;
};

export type Results = {
  version: 1;
  profile: Profile['name'];
  sections: string[];
  startedAt: string;
  durationSeconds: number;
  machine: Machine;
  setup: { database: string; temporal: string; poolMax: number; concurrency: number; profile: Profile };
  requests: RequestFigures[];
  list: ListPoint[];
  engine: EngineFigures | null;
  /** `npm start`'s single process (absent from results of runs before it was measured). */
  oneProcess?: OneProcessFigures | null;
  memory: {
    apiIdleMb: number | null;
    apiPeakMb: number | null;
    workerIdleMb: number | null;
    workerPeakMb: number | null;
    workerAfterLoadMb: number | null;
  };
  summary?: SummaryRow[];
};

/** The targets Deskflow is measured against. */
export const TARGETS = {
  requestsVsSql: 0.6,
  halfRateP99Ms: 50,
  listGrowth: 2,
  /** Page 1 of the list with one filter (or a search of a word in 1 % of tickets), at the largest size. */
  listFilterP50Ms: 50,
  sustainedPerSecond: 50,
  engineVsDoNothing: 0.6,
  ticketToCompletedP50Ms: 150,
  workerReadyMs: 3_000,
  apiRssMb: 200,
  workerRssMb: 300,
  oneProcessRssMb: 400,
};

/** One line of the summary: Deskflow's figure, its ceiling, the ratio, the target and whether it is met (null: no target). */
export type SummaryRow = {
  measure: string;
  deskflow: string;
  ceiling: string;
  ratio: string;
  target: string;
  met: boolean | null;
  /** The figure in one short phrase, for the chart; else `deskflow`. */
  brief?: string;
};

export function machineInfo(): Machine {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'temporal', 'migrations', 'bench/*.ts', 'bench/engine'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    if (dirty) commit += '+changes';
  } catch {
    /* not a git checkout */
  }
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit,
  };
}

export function describeRun(r: Results): string {
  const m = r.machine;
  return (
    `${r.profile} run of ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${m.commit}, ${r.durationSeconds} s: ` +
    `${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}, load average ${m.loadAverage[0]} at start${m.loadAverageAtEnd ? `, ${m.loadAverageAtEnd[0]} at end` : ''}; ` +
    `${r.setup.database}; Temporal ${r.setup.temporal}; ${r.setup.concurrency} callers; pool of ${r.setup.poolMax} connections per process`
  );
}
