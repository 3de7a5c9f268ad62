import type pg from 'pg';
import { ceilingPool } from './ceiling-sql.ts';
import { line } from './http-section.ts';
import { closedLoop, HttpClient, type LoadResult } from './load.ts';
import type { Profile } from './profile.ts';
import { TARGETS } from './results.ts';
import { scenarios } from './scenarios.ts';
import { SEEDED, seedTickets, settleTickets } from './seed.ts';

export type ListPoint = {
  tickets: number;
  seedSeconds: number;
  firstPage: { deskflow: LoadResult; sql: LoadResult };
  deepPage: { deskflow: LoadResult; sql: LoadResult };
  /** Page 1 of each kind of filter, at the largest size only. */
  filters?: FilterPoint[];
};

export type FilterPoint = {
  id: string;
  label: string;
  query: string;
  /** The list's total for the filter. */
  total: number;
  /** p50 target in milliseconds; null: measured to be told, not held to one. */
  targetMs: number | null;
  deskflow: LoadResult;
};

/**
 * Page 1 of the list with each kind of filter, on the seeded workspace (bench/seed.ts says what
 * the words, customers, agents and tags are and how many tickets have each).
 */
const FILTERS: Array<Pick<FilterPoint, 'id' | 'label' | 'query'> & { target: boolean }> = [
  { id: 'q', label: `q, a word in 1 % of tickets (${SEEDED.onePercentWord})`, query: `q=${SEEDED.onePercentWord}`, target: true },
  { id: 'q_common', label: `q, a word in 90 % of tickets (${SEEDED.commonWord})`, query: `q=${SEEDED.commonWord}`, target: false },
  { id: 'customer_email', label: 'customer_email, a customer of 70 tickets', query: `customer_email=${encodeURIComponent(SEEDED.customer)}`, target: true },
  { id: 'assigned_to', label: `assigned_to, an agent (${SEEDED.agent})`, query: `assigned_to=${SEEDED.agent}`, target: true },
  { id: 'unassigned', label: 'assigned_to=none', query: 'assigned_to=none', target: true },
  { id: 'priority', label: 'priority=urgent', query: 'priority=urgent', target: true },
  { id: 'tag', label: `tag=${SEEDED.tag}`, query: `tag=${SEEDED.tag}`, target: true },
  { id: 'source', label: 'source=api', query: 'source=api', target: true },
  { id: 'sort_updated', label: 'sort=updated_at', query: 'sort=updated_at', target: true },
];

/**
 * List latency as one workspace grows through `profile.listSizes` tickets (seeded in SQL):
 * page 1 and the deep page, one request at a time, on Deskflow and on its SQL through pg; at
 * the largest size, page 1 with each kind of filter on Deskflow.
 */
export async function measureListGrowth(
  profile: Profile,
  target: { apiPort: number; key: string; workspaceId: string; databaseUrl: string; poolMax: number },
  bench: pg.Pool,
  progress: (line: string) => void,
): Promise<ListPoint[]> {
  const db = ceilingPool(target.databaseUrl, target.poolMax, 60_000);
  const all = scenarios({ key: target.key, tickets: [], perPage: profile.perPage, deepPage: profile.deepPage });
  const first = all.find((s) => s.id === 'list_first_page')!;
  const deep = all.find((s) => s.id === 'list_deep_page')!;
  const points: ListPoint[] = [];
  const run = { concurrency: 1, durationMs: profile.listMeasureMs, warmupMs: 200 };
  try {
    let seeded = 0;
    for (const size of profile.listSizes) {
      const started = Date.now();
      await seedTickets(bench, target.workspaceId, seeded, size, (done) => {
        if (done % 250_000 === 0 || done === size) progress(`  seeding: ${done.toLocaleString('en')} of ${size.toLocaleString('en')} tickets`);
      });
      await settleTickets(bench);
      seeded = size;
      const seedSeconds = (Date.now() - started) / 1000;
      const measure = async (scenario: typeof first) => {
        const client = new HttpClient({ port: target.apiPort, key: target.key });
        const deskflow = await closedLoop({ ...run, op: async (i) => void (await client.call(scenario.http(i))) }).finally(() => client.close());
        const sql = await closedLoop({ ...run, op: (i) => scenario.sql(db, i) });
        const what = `${scenario.label.replace('list tickets, ', '')} of ${size.toLocaleString('en')}`;
        progress(line(what, 'deskflow', '1 caller', deskflow));
        progress(line(what, 'sql', '1 caller', sql));
        return { deskflow, sql };
      };
      points.push({ tickets: size, seedSeconds, firstPage: await measure(first), deepPage: await measure(deep) });
    }
    const largest = points.at(-1);
    if (largest) largest.filters = await measureFilters(profile, target, run, progress);
    return points;
  } finally {
    await db.end();
  }
}

async function measureFilters(
  profile: Profile,
  target: { apiPort: number; key: string },
  run: { concurrency: number; durationMs: number; warmupMs: number },
  progress: (line: string) => void,
): Promise<FilterPoint[]> {
  const client = new HttpClient({ port: target.apiPort, key: target.key });
  const points: FilterPoint[] = [];
  try {
    for (const filter of FILTERS) {
      const path = `/api/v1/tickets?per_page=${profile.perPage}&${filter.query}`;
      const answer = (await client.call({ method: 'GET', path, expect: 200 })) as { pagination: { total: number } };
      const total = answer.pagination.total;
      const deskflow = await closedLoop({ ...run, op: async () => void (await client.call({ method: 'GET', path, expect: 200 })) });
      progress(line(`page 1, ${filter.label} (${total.toLocaleString('en')} match)`, 'deskflow', '1 caller', deskflow));
      points.push({ id: filter.id, label: filter.label, query: filter.query, total, targetMs: filter.target ? TARGETS.listFilterP50Ms : null, deskflow });
    }
    return points;
  } finally {
    await client.close();
  }
}
