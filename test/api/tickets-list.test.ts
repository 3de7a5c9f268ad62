import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, keysOf, sleep, TICKET_FIELDS } from '../helpers/expect.ts';
import { createTicket, setStatus } from '../helpers/api.ts';

/** One workspace with 25 tickets, created a little apart so "newest first" is unambiguous. */
const app = useTestApp();
const { ws, api } = useWorkspace(app);
let createdIds: string[] = [];
beforeAll(async () => {
  createdIds = [];
  for (let i = 0; i < 25; i++) {
    createdIds.push((await createTicket(api, { subject: `Ticket ${i}` })).id);
    await sleep(2);
  }
  await setStatus(api, createdIds[3], 'pending');
  await setStatus(api, createdIds[10], 'pending');
  await setStatus(api, createdIds[20], 'solved');
});

const list = (query = '') => api.get(`/api/v1/tickets${query}`);
const newestFirst = () => [...createdIds].reverse();

describe('GET /api/v1/tickets', () => {
  it('answers { data, pagination } with page 1 and 20 per page by default, newest first', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(keysOf(res.body)).toEqual(['data', 'pagination']);
    expect(res.body.pagination).toEqual({ page: 1, perPage: 20, total: 25 });
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst().slice(0, 20));
  });

  it('lists full Tickets of exactly the twelve public fields', async () => {
    const res = await list('?per_page=5');
    for (const ticket of res.body.data) expect(keysOf(ticket)).toEqual(TICKET_FIELDS);
    expect(res.body.data[0]).toMatchObject({ subject: 'Ticket 24', status: 'open', priority: 'medium', tags: [] });
  });

  it('pages through every ticket exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await list(`?page=${page}&per_page=7`);
      expect(res.body.pagination).toEqual({ page, perPage: 7, total: 25 });
      seen.push(...res.body.data.map((t: { id: string }) => t.id));
    }
    expect(seen).toEqual(newestFirst());
  });

  it('answers an empty page beyond the end, with the true total', async () => {
    const res = await list('?page=3');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { page: 3, perPage: 20, total: 25 } });
    expect((await list('?page=1000&per_page=100')).body.data).toEqual([]);
  });

  it('accepts per_page 100 and 1', async () => {
    expect((await list('?per_page=100')).body.data).toHaveLength(25);
    const one = await list('?per_page=1');
    expect(one.body.data.map((t: { id: string }) => t.id)).toEqual([createdIds[24]]);
  });

  it('reads page and per_page with leading zeros as the same integers (like limit)', async () => {
    const res = await list('?page=02&per_page=005');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 2, perPage: 5, total: 25 });
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst().slice(5, 10));
  });

  it('refuses unknown query parameters with 400 naming each', async () => {
    const res = await list('?foo=bar&limit=1&perPage=2');
    expectValidation(res, 'foo', /Unknown query parameter/);
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['foo', 'limit', 'perPage']);
  });
});

describe('GET /api/v1/tickets: bad page and per_page', () => {
  it.each(['101', '0101', '1000', '0', '000', '-1', '1.5', 'abc', '', '1e2', ' 5', '0x10'])('rejects per_page=%j with 400', async (value) => {
    expectValidation(await list(`?per_page=${encodeURIComponent(value)}`), 'per_page');
  });

  it.each(['0', '00', '-1', '1.5', 'abc', '', 'one', '+1'])('rejects page=%j with 400', async (value) => {
    expectValidation(await list(`?page=${encodeURIComponent(value)}`), 'page');
  });

  it.each([
    ['per_page', '?per_page=5&per_page=5'],
    ['page', '?page=1&page=2'],
    ['status', '?status=open&status=pending'],
    ['workspace_id', '?workspace_id=a&workspace_id=b'],
  ])('rejects a repeated %s with 400', async (field, query) => {
    expectValidation(await list(query), field);
  });
});

describe('GET /api/v1/tickets: status filter', () => {
  it('lists only tickets of that status, with their total', async () => {
    const pending = await list('?status=pending');
    expect(pending.status).toBe(200);
    expect(pending.body.data.map((t: { id: string }) => t.id)).toEqual([createdIds[10], createdIds[3]]);
    expect(pending.body.pagination.total).toBe(2);
    expect((await list('?status=solved')).body.data.map((t: { id: string }) => t.id)).toEqual([createdIds[20]]);
    expect((await list('?status=open')).body.pagination.total).toBe(22);
    expect((await list('?status=closed')).body).toEqual({ data: [], pagination: { page: 1, perPage: 20, total: 0 } });
  });

  it.each(['reopened', 'OPEN', '', 'open,pending'])('rejects status=%j with 400', async (value) => {
    expectValidation(await list(`?status=${encodeURIComponent(value)}`), 'status');
  });
});

describe('GET /api/v1/tickets: workspace_id', () => {
  it('accepts the workspace of the key', async () => {
    const res = await list(`?workspace_id=${ws.workspaceId}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(25);
  });

  it('refuses another workspace with 403, whether it exists or not', async () => {
    const other = await createWorkspace(app.orm);
    expectError(await list(`?workspace_id=${other.workspaceId}`), 403, 'forbidden');
    expectError(await list('?workspace_id=00000000-0000-4000-8000-000000000000'), 403, 'forbidden');
    expectError(await list('?workspace_id=nonsense'), 403, 'forbidden');
    expectError(await list('?workspace_id='), 403, 'forbidden');
  });
});
