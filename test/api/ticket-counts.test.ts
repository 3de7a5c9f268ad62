import { beforeAll, describe, expect, it } from 'vitest';
import { client, type Client, createWorkspace, newWorkspace, useTestApp } from '../helpers/app.ts';
import { newTicket } from '../helpers/api.ts';
import { foldFilterCounts } from '../../src/tickets/counts.ts';

// The list's `total` comes from counters that triggers keep with every write
// (src/tickets/counts.ts): it must equal the real number of tickets whatever the writes did.

const app = useTestApp();
let api: Client;
let workspaceId: string;
beforeAll(async () => {
  const ws = await createWorkspace(app.orm);
  workspaceId = ws.workspaceId;
  api = client(app.baseUrl, ws.key);
});

const STATUSES = ['open', 'pending', 'escalated', 'solved', 'closed'] as const;

async function listedTotals(): Promise<Record<string, number>> {
  const totals: Record<string, number> = { all: (await api.get('/api/v1/tickets?per_page=1')).body.pagination.total };
  for (const status of STATUSES) totals[status] = (await api.get(`/api/v1/tickets?per_page=1&status=${status}`)).body.pagination.total;
  return totals;
}

async function countedTotals(): Promise<Record<string, number>> {
  const rows: Array<{ status: string; n: string }> = await app.orm.em
    .fork()
    .getConnection()
    .execute('select status, count(*) as n from tickets where workspace_id = ? group by status', [workspaceId]);
  const totals: Record<string, number> = { all: rows.reduce((sum, r) => sum + Number(r.n), 0) };
  for (const status of STATUSES) totals[status] = Number(rows.find((r) => r.status === status)?.n ?? 0);
  return totals;
}

describe('ticket list totals', () => {
  it('equal the tickets there are after concurrent creations, status changes and reopening replies', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, async (_, i) => (await api.post('/api/v1/tickets', newTicket({ subject: `Count me ${i}` }))).body.data.id as string));
    expect(await listedTotals()).toEqual({ all: 40, open: 40, pending: 0, escalated: 0, solved: 0, closed: 0 });

    // Every ticket through several statuses at once, some to the same status twice.
    await Promise.all(
      ids.map(async (id, i) => {
        await api.patch(`/api/v1/tickets/${id}`, { status: STATUSES[i % 5] });
        await api.patch(`/api/v1/tickets/${id}`, { status: STATUSES[(i * 3) % 5] });
        await api.patch(`/api/v1/tickets/${id}`, { priority: 'high' });
      }),
    );
    // A customer reply reopens pending and solved tickets.
    await Promise.all(ids.slice(0, 10).map((id) => api.post(`/api/v1/tickets/${id}/messages`, { body: 'Any news?', senderEmail: 'customer@example.com' })));

    const counted = await countedTotals();
    expect(counted.all).toBe(40);
    expect(await listedTotals()).toEqual(counted);
  });

  it('are kept per workspace', async () => {
    const { ws: other, api: theirs } = await newWorkspace(app);
    await theirs.post('/api/v1/tickets', newTicket());
    expect((await theirs.get('/api/v1/tickets')).body.pagination.total).toBe(1);
    expect((await api.get('/api/v1/tickets')).body.pagination.total).toBe((await countedTotals()).all);
  });
});

describe('filtered list totals', () => {
  // The totals of lists filtered by priority, source or kind of assignee sum ticket_filter_counts,
  // whose shards the relay folds into shard 0 (foldFilterCounts) while tickets are written.
  const FILTERS = ['priority=high', 'priority=low&priority=urgent', 'source=email', 'source=widget&priority=medium', 'assigned_to=none', 'assigned_to=ai', 'status=pending&assigned_to=ai&priority=high'];
  const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
  const SOURCES = ['email', 'widget', 'api'] as const;

  it('stay exact while the counters are folded during concurrent writes, which leave one row per combination in use', async () => {
    const ws = await createWorkspace(app.orm, [{ userId: 'agent-1' }]);
    const mine = client(app.baseUrl, ws.key);
    const db = () => app.orm.em.fork().getConnection();
    const listedTotals = async () => Object.fromEntries(await Promise.all(FILTERS.map(async (f) => [f, (await mine.get(`/api/v1/tickets?per_page=1&${f}`)).body.pagination.total as number])));
    const rows = () => db().execute<Array<{ shard: number; count: string }>>('select shard, count from ticket_filter_counts where workspace_id = ?', [ws.workspaceId]);

    let writing = true;
    let folded = 0;
    const folding = (async () => {
      // Small batches, over and over, so that folds meet writers on the same counters.
      while (writing) folded += await foldFilterCounts(app.orm.em.fork(), 3, [ws.workspaceId]);
    })();
    const ids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await mine.post('/api/v1/tickets', newTicket({ subject: `Fold me ${i}`, source: SOURCES[i % 3] }));
        expect(res.status).toBe(201);
        return res.body.data.id as string;
      }),
    );
    await Promise.all(
      ids.map(async (id, i) => {
        // A third stay unassigned; the others move between the AI agent and a member.
        const assignee = (k: number) => (i % 3 === 2 ? {} : { assignedTo: (i + k) % 2 === 0 ? 'ai' : 'agent-1' });
        expect((await mine.patch(`/api/v1/tickets/${id}`, { priority: PRIORITIES[i % 4], ...assignee(0) })).status).toBe(200);
        expect((await mine.patch(`/api/v1/tickets/${id}`, { status: STATUSES[i % 5] })).status).toBe(200);
        expect((await mine.patch(`/api/v1/tickets/${id}`, { priority: PRIORITIES[(i * 3) % 4], ...assignee(1) })).status).toBe(200);
        if (i % 4 === 0) await mine.post('/api/v1/tickets', newTicket({ subject: `More ${i}`, source: 'widget' }));
      }),
    );
    writing = false;
    await folding;
    expect(folded).toBeGreaterThan(0);

    const counted = async () => {
      const totals: Record<string, number> = {};
      for (const f of FILTERS) totals[f] = (await mine.get(`/api/v1/tickets?per_page=100&${f}`)).body.data.length;
      return totals;
    };
    const expected = await counted();
    expect(Object.values(expected).some((n) => n > 0)).toBe(true);
    expect(await listedTotals()).toEqual(expected);

    // Folded to the end: shard 0 only, no counter at 0, one row per combination in use, same totals.
    while ((await foldFilterCounts(app.orm.em.fork(), 3, [ws.workspaceId])) >= 3);
    const combinations: Array<{ n: string }> = await db().execute(
      `select count(*) as n from (select distinct status, priority, source, assigned_to is null, assigned_to = 'ai' from tickets where workspace_id = ?) c`,
      [ws.workspaceId],
    );
    const left = await rows();
    expect(left.every((r) => r.shard === 0 && Number(r.count) > 0)).toBe(true);
    expect(left.length).toBe(Number(combinations[0].n));
    expect(left.reduce((sum, r) => sum + Number(r.count), 0)).toBe(ids.length + 8);
    expect(await listedTotals()).toEqual(expected);
  });

  it('are folded only in the given workspaces', async () => {
    const { ws: other, api: theirs } = await newWorkspace(app);
    await Promise.all([1, 2, 3].map(() => theirs.post('/api/v1/tickets', newTicket())));
    const shards = async () => {
      const rows: Array<{ n: string }> = await app.orm.em.fork().getConnection().execute('select count(*) as n from ticket_filter_counts where workspace_id = ? and shard <> 0', [other.workspaceId]);
      return Number(rows[0].n);
    };
    // Whichever shards the creates went to, one ticket is moved to shard 9 (the total is the same).
    await app.orm.em.fork().getConnection().execute(
      `with "taken" as (
         update ticket_filter_counts set count = count - 1
          where (workspace_id, shard) = (select workspace_id, shard from ticket_filter_counts where workspace_id = ? and shard <> 9 limit 1)
         returning *)
       insert into ticket_filter_counts as c select workspace_id, status, priority, source, assignee, 9, 1 from "taken"
       on conflict (workspace_id, status, priority, source, assignee, shard) do update set count = c.count + 1`,
      [other.workspaceId],
    );
    const before = await shards();
    expect(before).toBeGreaterThan(0);
    expect(await foldFilterCounts(app.orm.em.fork(), 100, [])).toBe(0);
    await foldFilterCounts(app.orm.em.fork(), 100, [workspaceId]);
    expect(await shards()).toBe(before);
    expect(await foldFilterCounts(app.orm.em.fork(), 100, [other.workspaceId])).toBe(before);
    expect(await shards()).toBe(0);
    expect((await theirs.get('/api/v1/tickets?priority=medium')).body.pagination.total).toBe(3);
  });
});
