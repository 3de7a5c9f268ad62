/**
 * How long and how big each measure is. `full` is the run whose figures count (about five
 * minutes on two cores); `quick` takes the same paths with tiny sizes, to show in CI that
 * the harness works. Its figures mean nothing.
 */
export type Profile = {
  name: 'full' | 'quick';
  /** Callers of every closed-loop HTTP/SQL measure. */
  concurrency: number;
  warmupMs: number;
  /** Closed loop: the maximum rate. */
  measureMs: number;
  /** Deskflow and its ceilings take turns this many times within measureMs and halfRateMs. */
  rounds: number;
  /** Open loop at half of Deskflow's maximum rate. */
  halfRateMs: number;
  /** Tickets in the workspace of the request measures before they start. */
  seedTickets: number;
  /** Tickets that gets and replies cycle through. */
  sampleTickets: number;
  perPage: number;
  deepPage: number;
  /** Workspace sizes of the list-latency measure, ascending. */
  listSizes: number[];
  /** Per size and page, one caller at a time. */
  listMeasureMs: number;
  /** Tickets created at once for the engine's burst. */
  burst: number;
  sustainedRate: number;
  sustainedMs: number;
  latencyRate: number;
  latencyMs: number;
  /** How long executions may take to finish after their tickets were created. */
  drainTimeoutMs: number;
  /** After a burst, how long a process is left idle before its memory is read again. */
  settleMs: number;
};

export const FULL: Profile = {
  name: 'full',
  concurrency: 32,
  warmupMs: 1_000,
  measureMs: 3_000,
  rounds: 3,
  halfRateMs: 3_000,
  seedTickets: 10_000,
  sampleTickets: 2_000,
  perPage: 20,
  deepPage: 500,
  listSizes: [10_000, 100_000, 1_000_000],
  listMeasureMs: 2_000,
  burst: 400,
  sustainedRate: 50,
  sustainedMs: 10_000,
  latencyRate: 10,
  latencyMs: 8_000,
  drainTimeoutMs: 60_000,
  settleMs: 15_000,
};

export const QUICK: Profile = {
  name: 'quick',
  concurrency: 32,
  warmupMs: 200,
  measureMs: 1_000,
  rounds: 2,
  halfRateMs: 500,
  seedTickets: 1_000,
  sampleTickets: 200,
  perPage: 20,
  deepPage: 40,
  listSizes: [1_000, 2_000, 5_000],
  listMeasureMs: 200,
  burst: 20,
  sustainedRate: 10,
  sustainedMs: 1_000,
  latencyRate: 5,
  latencyMs: 1_000,
  drainTimeoutMs: 60_000,
  settleMs: 1_000,
};
