import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { authenticate, ceilingPool } from '../../bench/ceiling-sql.ts';
import { scenarios, type Scenario } from '../../bench/scenarios.ts';
import { client, createWorkspace, startTestApp, type Client, type TestApp } from '../helpers/app.ts';

/**
 * `npm run bench` compares each request with "the same SQL through pg" (bench/ceiling-sql.ts).
 * That comparison means something only while the ceiling runs the statements Deskflow runs:
 * when a service's queries change, this fails until the ceiling follows.
 */
let app: TestApp;
let api: Client;
let db: pg.Pool;
let list: Scenario[];

/** Every statement sent through pg (Deskflow's ORM and the ceiling alike) while `act` runs. */
async function statementsOf(act: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text) sent.push(text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await act();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

/** The statement with its values, inlined or bound, replaced by `?`: the ORM inlines, the ceiling binds. */
function shape(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\$\d+/g, '?')
    .replace(/\b(?:null|true|false|\d+)\b/g, '?')
    .trim();
}

/** The statements' shapes, without the relays' wake-ups (`select pg_notify`). */
const withoutWakeups = (statements: string[]) => statements.map(shape).filter((s) => !s.startsWith('select pg_notify('));

beforeAll(async () => {
  app = await startTestApp();
  const ws = await createWorkspace(app.orm);
  api = client(app.baseUrl, ws.key);
  db = ceilingPool(inject('databaseUrl'), 4);
  const tickets = [];
  for (let i = 0; i < 3; i++) {
    const email = `customer${i}@example.com`;
    const created = await api.post('/api/v1/tickets', { subject: `Ticket ${i}`, customerEmail: email, body: 'Help.' });
    tickets.push({ id: created.body.data.id as string, email });
  }
  list = scenarios({ key: ws.key, tickets, perPage: 2, deepPage: 2 });
  // Both sides keep a key they have seen in memory: the API has seen it above, the ceiling now.
  await authenticate(db, ws.key);
});
afterAll(async () => {
  await db?.end();
  await app?.close();
});

describe('the raw-SQL ceilings of the bench', () => {
  it('run, for every benchmarked request, the statements Deskflow runs for it', async () => {
    expect(list.map((s) => s.id)).toEqual(['get_ticket', 'list_first_page', 'list_deep_page', 'add_message', 'create_ticket']);
    for (const [i, scenario] of list.entries()) {
      const call = scenario.http(i);
      const deskflow = await statementsOf(async () => {
        const res = await api.call(call.method, call.path, call.body);
        expect(res.status, `${scenario.label}: ${JSON.stringify(res.body)}`).toBe(call.expect);
      });
      const ceiling = await statementsOf(() => scenario.sql(db, i));
      // Sorted: the two queries of a list run at once, in either order. The relays' wake-up
      // after a commit of events goes out on its own, around the answer: it is left out.
      expect(withoutWakeups(ceiling).sort(), scenario.label).toEqual(withoutWakeups(deskflow).sort());
      expect(deskflow.length, scenario.label).toBeGreaterThan(0);
    }
  });
});
