import type pg from 'pg';
import { ceilingPool } from './ceiling-sql.ts';
import { line } from './http-section.ts';
import { closedLoop, HttpClient, type LoadResult } from './load.ts';
import type { Profile } from './profile.ts';
import { scenarios } from './scenarios.ts';
import { seedTickets, settleTickets } from './seed.ts';

export type ListPoint = {
  tickets: number;
  seedSeconds: number;
  firstPage: { deskflow: LoadResult; sql: LoadResult };
  deepPage: { deskflow: LoadResult; sql: LoadResult };
};

/**
 * List latency as one workspace grows through `profile.listSizes` tickets (seeded in SQL):
 * page 1 and the deep page, one request at a time, on Deskflow and on its SQL through pg.
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
        const run = { concurrency: 1, durationMs: profile.listMeasureMs, warmupMs: 200 };
        const deskflow = await closedLoop({ ...run, op: async (i) => void (await client.call(scenario.http(i))) }).finally(() => client.close());
        const sql = await closedLoop({ ...run, op: (i) => scenario.sql(db, i) });
        const what = `${scenario.label.replace('list tickets, ', '')} of ${size.toLocaleString('en')}`;
        progress(line(what, 'deskflow', '1 caller', deskflow));
        progress(line(what, 'sql', '1 caller', sql));
        return { deskflow, sql };
      };
      points.push({ tickets: size, seedSeconds, firstPage: await measure(first), deepPage: await measure(deep) });
    }
    return points;
  } finally {
    await db.end();
  }
}
