import { beforeAll, describe, expect, it } from 'vitest';
import { client, type Client, createWorkspace, newWorkspace, useTestApp } from '../helpers/app.ts';
import { newTicket } from '../helpers/api.ts';

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
