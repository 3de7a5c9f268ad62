import fc from 'fast-check';
import { Client, type ScheduleOptions } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { cronProblem, isValidTimeZone } from '../../src/graph/index.ts';
import { useTemporalConnection } from '../helpers/engine.ts';

// A scheduled trigger's cron is accepted at save exactly when the Temporal server accepts it
// as a schedule's cron string (docs/automations.md, "Schedules"), so activating a workflow
// never fails on a cron that passed validation. The judge is the run's dev server: creating a
// schedule with an invalid cron string is refused with "Invalid schedule spec", which the
// client throws as a TypeError.

const connection = useTemporalConnection();
let client: Client;
beforeAll(() => {
  client = new Client({ connection, namespace: 'default' });
});

let created = 0;
/** A paused schedule with these cron strings; never runs. */
function scheduleWith(cronExpressions: string[], timezone?: string): ScheduleOptions {
  created += 1;
  return {
    scheduleId: `cron-check-${process.pid}-${created}`,
    spec: { cronExpressions, ...(timezone === undefined ? {} : { timezone }) },
    action: { type: 'startWorkflow', workflowType: 'scheduledTick', taskQueue: 'cron-check', args: [] },
    state: { paused: true },
  };
}

/** Whether Temporal accepts every one of the cron strings (each is parsed; any error refuses all). */
async function temporalAccepts(cronExpressions: string[], timezone?: string): Promise<boolean> {
  try {
    const handle = await client.schedule.create(scheduleWith(cronExpressions, timezone));
    await handle.delete();
    return true;
  } catch (err) {
    if (err instanceof TypeError) return false; // the server's "Invalid schedule spec: …"
    throw err;
  }
}

/** Temporal's verdict on each expression, asking for the ones Deskflow accepts all at once. */
async function temporalVerdicts(corpus: string[]): Promise<Map<string, boolean>> {
  const verdicts = new Map<string, boolean>();
  const accepted = corpus.filter((e) => cronProblem(e) === undefined);
  const batchOk = accepted.length > 0 && (await temporalAccepts(accepted));
  const single = corpus.filter((e) => !batchOk || !accepted.includes(e));
  for (const e of accepted) if (batchOk) verdicts.set(e, true);
  for (let i = 0; i < single.length; i += 8) {
    const chunk = single.slice(i, i + 8);
    const answers = await Promise.all(chunk.map((e) => temporalAccepts([e])));
    chunk.forEach((e, k) => verdicts.set(e, answers[k]));
  }
  return verdicts;
}

async function expectSameVerdicts(corpus: string[]): Promise<void> {
  const unique = [...new Set(corpus)];
  const temporal = await temporalVerdicts(unique);
  const disagreements = unique
    .filter((e) => (cronProblem(e) === undefined) !== temporal.get(e))
    .map((e) => `${JSON.stringify(e)}: Temporal ${temporal.get(e) ? 'accepts' : 'refuses'}, Deskflow says ${cronProblem(e) ?? 'valid'}`);
  expect(disagreements).toEqual([]);
  // Both verdicts occur, so the comparison says something.
  const valid = unique.filter((e) => temporal.get(e)).length;
  expect(valid).toBeGreaterThan(unique.length / 5);
  expect(valid).toBeLessThan(unique.length);
}

const EDGE_CASES = [
  // accepted
  '* * * * *', '0 9 * * 1-5', '*/15 * * * *', '0 8-18/2 * * MON-FRI', '30 6 1,15 * *', '0 0 1 jan,Jul *',
  '59 23 31 12 0', '0 0 * * 7', '0 0 * * 5-7', '0 0 * * 7-7', '0 0 * * 1-7/2', '0 0 * * 3-7/3', '0 0 * * 7/2',
  '  0   12  *  *  *  ', '0\t12\u00a0*\u3000* *', '\u20280 12 * * *\u0085',
  '5/15 * * * *', '*/100 * * * *', '+5 +05 007 +1 +0', '0000000000000000000000005 * * * *',
  '0 0 * JANUARY,feb,MaR,sept *', '0 0 * * MONDAY,tu,wed,THURS,fri', '0 0 * * FRİ', '0 0 * APRİL *',
  '0 0 * apr-dec/2 mo-fr/2', '0 0 * * */2147483647', '0 0 * * +1-+5', '0 0 31 2 *',
  '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', ' @daily ',
  // refused
  '@DAILY', '@Daily', '@reboot', '@ daily', '@daily *', '60 * * * *', '0 24 * * *', '0 0 0 * *', '0 0 32 * *',
  '0 0 * 13 *', '0 0 * 0 *', '0 0 * FOO *', '0 0 * ja *', '0 0 * * 8', '0 0 * * m', '0 0 * * sat-sun',
  '0 0 * * mondays', '5-1 * * * *', '1-5-7 * * * *', '-5 * * * *', '-0 * * * *', '*-5 * * * *', '*/0 * * * *',
  '*/-1 * * * *', '*/2147483648 * * * *', '*/4294967295 * * * *', '*/99999999999999999999 * * * *', '*/x * * * *',
  '*/ * * * *', '1/2/3 * * * *', '/5 * * * *', '1,,2 * * * *', ',1 * * * *', '? * * * *', 'L * * * *',
  '1.5 * * * *', '0x1 * * * *', '* * * *', '*', '', '   ', '0 0 * * \ufeff1', '0 0 * * FRı',
  '0 0 * * K', '0 1 2 3 4 5 6 7 8',
];

describe('cron validation agrees with the Temporal server', () => {
  it('on hand-picked edge cases', async () => {
    await expectSameVerdicts(EDGE_CASES);
  }, 120_000);

  it('on generated expressions', async () => {
    // Per field: mostly values near its range (bounds ± 1, names of its own kind), sometimes
    // anything at all, so that whole expressions of both verdicts come up.
    const wild = fc.constantFrom('?', 'L', 'W', '', '1.5', '#', '5L', 'abc', '-1', '+', 'x', 'mo', 'jan', 'sun', '99');
    const numberIn = (min: number, max: number) =>
      fc.oneof(
        { weight: 12, arbitrary: fc.integer({ min, max }).map(String) },
        { weight: 1, arbitrary: fc.constantFrom(String(min - 1), String(max + 1), `+${max}`, `0${min}`, `00${max}`) },
      );
    const fieldOf = (min: number, max: number, names: string[]) => {
      const value = names.length === 0 ? numberIn(min, max) : fc.oneof({ weight: 2, arbitrary: numberIn(min, max) }, { weight: 1, arbitrary: fc.constantFrom(...names) });
      const step = fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 1, max: max + 2 }).map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '', 'x', '+3', '2147483647', '2147483648') });
      const ordered = fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
      const range = fc.oneof({ weight: 3, arbitrary: ordered }, { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => `${a}-${b}`) });
      const item = fc.oneof(
        { weight: 4, arbitrary: value },
        { weight: 4, arbitrary: fc.constant('*') },
        { weight: 3, arbitrary: range },
        { weight: 2, arbitrary: fc.tuple(fc.oneof(value, fc.constant('*')), step).map(([a, n]) => `${a}/${n}`) },
        { weight: 1, arbitrary: fc.tuple(range, step).map(([r, n]) => `${r}/${n}`) },
        { weight: 1, arbitrary: wild },
      );
      return fc.array(item, { minLength: 1, maxLength: 2 }).map((items) => items.join(','));
    };
    const months = ['jan', 'JANUARY', 'Febr', 'mar', 'sept', 'Dec', 'oct', 'MAY', 'decembers', 'ja', 'mo'];
    const days = ['mo', 'Mon', 'MONDAY', 'tu', 'th', 'thurs', 'fr', 'sat', 'su', 'sun', 'wed', 's', 'jan'];
    const fields = fc.tuple(fieldOf(0, 59, []), fieldOf(0, 23, []), fieldOf(1, 31, []), fieldOf(1, 12, months), fieldOf(0, 7, days));
    const separator = fc.constantFrom(' ', ' ', ' ', '  ', '\t', '\u00a0', '\u3000', '\ufeff');
    const expression = fc.oneof(
      { weight: 12, arbitrary: fc.tuple(fields, separator, fc.nat({ max: 9 })).map(([f, sep, drop]) => (drop === 0 ? f.slice(1) : f).join(sep)) },
      { weight: 1, arbitrary: fc.constantFrom('@daily', '@Daily', '@HOURLY', '@midnight', '@weekly', '@month', '@yearly ') },
    );
    const corpus = fc.sample(expression, { seed: 20_251_107, numRuns: 400 }).filter((e) => [...e].length <= 200);
    await expectSameVerdicts(corpus);
  }, 180_000);

  it('on time zones too, including names spelled in other capitals', async () => {
    const zones = ['Europe/Berlin', 'europe/berlin', 'EUROPE/BERLIN', 'UTC', 'utc', 'Etc/GMT+5', 'etc/gmt+5', 'America/Argentina/Buenos_Aires', 'US/Pacific', 'Etc/UTC', 'Mars/Olympus'];
    for (const timezone of zones) {
      const temporal = await temporalAccepts(['0 2 * * *'], timezone);
      expect(isValidTimeZone(timezone), `${timezone}: Temporal ${temporal ? 'accepts' : 'refuses'} it`).toBe(temporal);
    }
  }, 60_000);

  it('refuses on purpose the forms Temporal would also take: seconds and years, TZ=, comments, @every, steps past 2^31', async () => {
    const deliberate = ['0 0 2 * * * *', '0 2 * * * 2030', 'TZ=Europe/Berlin 0 2 * * *', 'CRON_TZ=UTC 0 2 * * *', '0 2 * * * # nightly', '@every 5m', '*/4294967296 * * * *', '0 */4294967301 * * *'];
    for (const e of deliberate) {
      expect(await temporalAccepts([e]), e).toBe(true);
      expect(cronProblem(e), e).toBeDefined();
    }
  }, 60_000);
});
