import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, client, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectValidation, sleep } from '../helpers/expect.ts';
import { expectStatus, openTicket, setStatus } from '../helpers/api.ts';

// GET /api/v1/tickets filters and sorts (docs/api.md, "Listing and searching"): every filter on
// its own, repeated (any of its values), together (all of them), with exact totals.

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'agent-1' }, { userId: 'agent-2', role: 'admin' }]);

type Shape = { subject: string; email: string; source: string; priority: string; assignee?: string; tags?: string[]; status?: string };
const SHAPES: Shape[] = [
  { subject: 'Printer jam', email: 'Ann@Example.com', source: 'email', priority: 'high', assignee: 'agent-1', tags: ['billing', 'vip'] },
  { subject: 'Login fails', email: 'bob@example.com', source: 'widget', priority: 'urgent', assignee: 'ai', tags: ['vip'] },
  { subject: 'Refund please', email: 'ann@example.com', source: 'api', priority: 'low' },
  { subject: 'Printer offline', email: 'carol@example.com', source: 'email', priority: 'medium', assignee: 'agent-2', tags: ['billing'] },
  { subject: 'Invoice copy', email: 'bob@example.com', source: 'email', priority: 'high', status: 'pending' },
  { subject: 'Password reset', email: 'dave@example.com', source: 'widget', priority: 'medium', assignee: 'agent-1', tags: ['login'], status: 'solved' },
];
/** Ticket ids by their index in SHAPES (created in that order, a little apart). */
let t: string[] = [];

beforeAll(async () => {
  t = [];
  for (const shape of SHAPES) {
    const id = await openTicket(api, { subject: shape.subject, customerEmail: shape.email, source: shape.source });
    const change: Record<string, string> = { priority: shape.priority };
    if (shape.assignee) change.assignedTo = shape.assignee;
    if (shape.status) change.status = shape.status;
    expectStatus(await api.patch(`/api/v1/tickets/${id}`, change), 200);
    for (const tag of shape.tags ?? []) expectStatus(await api.post(`/api/v1/tickets/${id}/tags`, { tag }), 200);
    t.push(id);
    await sleep(3);
  }
});

/** The ids listed (by their index in SHAPES) and the total. */
async function listed(query: string): Promise<{ ids: number[]; total: number }> {
  const res = await api.get(`/api/v1/tickets?per_page=100&${query}`);
  expectStatus(res, 200);
  return { ids: res.body.data.map((ticket: { id: string }) => t.indexOf(ticket.id)), total: res.body.pagination.total };
}
/** Newest first: the indexes given, highest first. */
const newestFirst = (...indexes: number[]) => ({ ids: [...indexes].sort((a, b) => b - a), total: indexes.length });

describe('GET /api/v1/tickets: each filter', () => {
  it('customer_email: any letter case, exact, repeatable', async () => {
    expect(await listed('customer_email=ANN@example.COM')).toEqual(newestFirst(0, 2));
    expect(await listed('customer_email=ann@example.com&customer_email=bob@example.com')).toEqual(newestFirst(0, 1, 2, 4));
    expect(await listed('customer_email=%20dave@example.com%20')).toEqual(newestFirst(5));
    // Exact: part of an address finds nothing.
    expect(await listed('customer_email=nn@example.com')).toEqual(newestFirst());
  });

  it('assigned_to: a member, the AI agent, no one, or several of them', async () => {
    expect(await listed('assigned_to=agent-1')).toEqual(newestFirst(0, 5));
    expect(await listed('assigned_to=ai')).toEqual(newestFirst(1));
    expect(await listed('assigned_to=none')).toEqual(newestFirst(2, 4));
    expect(await listed('assigned_to=agent-2&assigned_to=none')).toEqual(newestFirst(2, 3, 4));
    expect(await listed('assigned_to=ai&assigned_to=agent-1&assigned_to=none')).toEqual(newestFirst(0, 1, 2, 4, 5));
    // Someone who has no tickets (or is no member at all): none, not an error.
    expect(await listed('assigned_to=nobody-here')).toEqual(newestFirst());
  });

  it('priority and source: any of the values given', async () => {
    expect(await listed('priority=high&priority=urgent')).toEqual(newestFirst(0, 1, 4));
    expect(await listed('priority=medium')).toEqual(newestFirst(3, 5));
    expect(await listed('source=widget')).toEqual(newestFirst(1, 5));
    expect(await listed('source=email&source=api')).toEqual(newestFirst(0, 2, 3, 4));
  });

  it('tag: the ticket has every tag given', async () => {
    expect(await listed('tag=vip')).toEqual(newestFirst(0, 1));
    expect(await listed('tag=billing')).toEqual(newestFirst(0, 3));
    expect(await listed('tag=vip&tag=billing')).toEqual(newestFirst(0));
    expect(await listed('tag=vip&tag=login')).toEqual(newestFirst());
    // Trimmed, as tags are stored.
    expect(await listed('tag=%20login%20')).toEqual(newestFirst(5));
  });

  it('status keeps its rule, and works with the others', async () => {
    expect(await listed('status=pending')).toEqual(newestFirst(4));
    expect(await listed('status=open&tag=billing')).toEqual(newestFirst(0, 3));
  });
});

describe('GET /api/v1/tickets: filters together', () => {
  it('all of them hold (AND across parameters, OR within one)', async () => {
    expect(await listed('priority=high&source=email&assigned_to=agent-1')).toEqual(newestFirst(0));
    expect(await listed('status=pending&customer_email=bob@example.com')).toEqual(newestFirst(4));
    expect(await listed('priority=high&priority=urgent&tag=vip')).toEqual(newestFirst(0, 1));
    expect(await listed('assigned_to=none&assigned_to=ai&source=widget&source=api')).toEqual(newestFirst(1, 2));
    expect(await listed('customer_email=ann@example.com&assigned_to=none&priority=low&source=api&status=open')).toEqual(newestFirst(2));
    expect(await listed('customer_email=ann@example.com&priority=medium')).toEqual(newestFirst());
  });

  it('totals are exact on every page, and beyond the last', async () => {
    for (const query of ['priority=high&priority=urgent', 'assigned_to=none&assigned_to=agent-2', 'tag=billing', 'customer_email=bob@example.com', 'source=email']) {
      const all = await listed(query);
      const first = await api.get(`/api/v1/tickets?per_page=1&${query}`);
      const beyond = await api.get(`/api/v1/tickets?page=99&per_page=1&${query}`);
      expect(first.body.pagination.total, query).toBe(all.ids.length);
      expect(first.body.data, query).toHaveLength(1);
      expect(beyond.body, query).toEqual({ data: [], pagination: { page: 99, perPage: 1, total: all.ids.length } });
    }
  });

  it('totals follow every change of the filtered fields at once', async () => {
    const { api: own } = await freshWorkspace();
    const id = await openTicket(own, { source: 'widget' });
    const count = async (query: string) => (await own.get(`/api/v1/tickets?per_page=1&${query}`)).body.pagination.total;
    expect([await count('assigned_to=none'), await count('priority=medium'), await count('source=widget'), await count('assigned_to=ai')]).toEqual([1, 1, 1, 0]);
    await own.patch(`/api/v1/tickets/${id}`, { assignedTo: 'ai', priority: 'urgent' });
    expect([await count('assigned_to=none'), await count('assigned_to=ai'), await count('priority=medium'), await count('priority=urgent')]).toEqual([0, 1, 0, 1]);
    await own.patch(`/api/v1/tickets/${id}`, { assignedTo: 'lee' });
    expect([await count('assigned_to=ai'), await count('assigned_to=lee'), await count('assigned_to=lee&assigned_to=none&priority=urgent')]).toEqual([0, 1, 1]);
    await own.patch(`/api/v1/tickets/${id}`, { assignedTo: 'kim', status: 'closed' });
    expect([await count('assigned_to=lee'), await count('assigned_to=kim&status=closed'), await count('status=open'), await count('source=widget&status=closed')]).toEqual([0, 1, 0, 1]);
  });
});

describe('GET /api/v1/tickets: sort', () => {
  it('created_at and -created_at (the default), ties by id', async () => {
    expect(await listed('sort=-created_at')).toEqual(newestFirst(0, 1, 2, 3, 4, 5));
    expect(await listed('sort=created_at')).toEqual({ ids: [0, 1, 2, 3, 4, 5], total: 6 });
    expect(await listed('sort=created_at&priority=medium')).toEqual({ ids: [3, 5], total: 2 });
  });

  it('updated_at and -updated_at: the ticket changed last comes last, or first', async () => {
    const { api: own } = await freshWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await openTicket(own, { subject: `Ticket ${i}` }));
      await sleep(3);
    }
    await setStatus(own, ids[0], 'pending');
    await sleep(3);
    await own.post(`/api/v1/tickets/${ids[1]}/messages`, { body: 'Any news?', senderEmail: 'customer@example.com' });
    const order = async (query: string) => (await own.get(`/api/v1/tickets?${query}`)).body.data.map((ticket: { id: string }) => ids.indexOf(ticket.id));
    expect(await order('sort=-updated_at')).toEqual([1, 0, 2]);
    expect(await order('sort=updated_at')).toEqual([2, 0, 1]);
    expect(await order('sort=updated_at&status=open')).toEqual([2, 1]);
  });
});

describe('GET /api/v1/tickets: bad filters', () => {
  it('answers 400 naming an unknown parameter', async () => {
    expectValidation(await api.get('/api/v1/tickets?foo=bar'), 'foo', /Unknown query parameter "foo"/);
    expectValidation(await api.get('/api/v1/tickets?perPage=2'), 'perPage');
    expectValidation(await api.get('/api/v1/tickets?status=open&assignee=agent-1'), 'assignee');
    expectValidation(await api.get('/api/v1/tickets?Priority=high'), 'Priority');
  });

  it.each([
    ['priority', 'priority=extreme'],
    ['priority', 'priority=high&priority=HIGH'],
    ['source', 'source=fax'],
    ['sort', 'sort=newest'],
    ['sort', 'sort=created_at&sort=-created_at'],
    ['sort', 'sort=-priority'],
    ['assigned_to', 'assigned_to='],
    ['assigned_to', 'assigned_to=%20agent-1'],
    ['customer_email', 'customer_email=not-an-address'],
    ['customer_email', 'customer_email=a@example.com&customer_email='],
    ['tag', 'tag='],
    ['tag', 'tag=%20%20'],
    ['tag', `tag=${'x'.repeat(101)}`],
    ['q', 'q='],
    ['q', 'q=%20%20'],
    ['q', `q=${'x'.repeat(201)}`],
    ['q', 'q=printer&q=jam'],
    // Text PostgreSQL cannot store, as in a body.
    ['q', 'q=print%00er'],
    ['tag', 'tag=vip&tag=v%00ip'],
    ['customer_email', 'customer_email=jo%00@example.com'],
    ['status', 'status=open&status=pending'],
  ])('answers 400 naming %s for ?%s', async (path, query) => {
    expectValidation(await api.get(`/api/v1/tickets?${query}`), path);
  });

  it('takes a parameter at most 50 times', async () => {
    const repeat = (n: number) => Array.from({ length: n }, (_, i) => `customer_email=c${i}@example.com`).join('&');
    expectStatus(await api.get(`/api/v1/tickets?${repeat(50)}`), 200);
    expectValidation(await api.get(`/api/v1/tickets?${repeat(51)}`), 'customer_email', /at most 50/);
  });
});

describe('GET /api/v1/tickets: workspaces', () => {
  it('never lists another workspace’s tickets, whatever the filter', async () => {
    const { api: other } = await freshWorkspace();
    const theirs = await openTicket(other, { subject: 'Printer jam', customerEmail: 'ann@example.com', source: 'email' });
    await other.patch(`/api/v1/tickets/${theirs}`, { assignedTo: 'ai', priority: 'high' });
    await other.post(`/api/v1/tickets/${theirs}/tags`, { tag: 'vip' });
    expect(await listed('customer_email=ann@example.com')).toEqual(newestFirst(0, 2));
    expect(await listed('tag=vip')).toEqual(newestFirst(0, 1));
    expect(await listed('assigned_to=ai')).toEqual(newestFirst(1));
    expect(await listed('priority=high')).toEqual(newestFirst(0, 4));
    expect((await other.get('/api/v1/tickets?tag=vip')).body.pagination.total).toBe(1);
  });
});

async function freshWorkspace() {
  const own = await createWorkspace(app.orm, [{ userId: 'lee' }, { userId: 'kim' }]);
  return { ws: own, api: client(app.baseUrl, own.key) };
}
