// The inbox (console/src/model/inbox.ts, inbox-list.ts): which tickets a view asks for, the views
// saved in the browser, and a list following the live feed.
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../../console/src/api-types.ts';
import { age, assigneeLabel, BUILT_IN_VIEWS, matchesFilter, ME, parseSavedViews, removeView, sameFilter, savedViewsKey, saveView, serializeSavedViews, ticketQuery } from '../../../console/src/model/inbox.ts';
import { applyLiveEvent } from '../../../console/src/model/inbox-list.ts';
import type { LiveEvent } from '../../../console/src/model/live.ts';

const ticket = (over: Partial<Ticket> = {}): Ticket => ({
  id: 't1',
  subject: 'Printer on fire',
  status: 'open',
  priority: 'medium',
  customerEmail: 'Dana@Example.com',
  customerName: 'Dana',
  source: 'email',
  assignedTo: null,
  resolutionType: null,
  tags: [],
  createdAt: '2026-03-02T09:00:00.000Z',
  updatedAt: '2026-03-02T09:00:00.000Z',
  ...over,
});
const view = (id: string) => BUILT_IN_VIEWS.find((v) => v.id === id)!.filter;
const page = { page: 1, perPage: 25 };

describe('the query a view asks the API', () => {
  it('asks for the built-in views as the API spells them', () => {
    expect(ticketQuery(view('unassigned'), null, page)).toBe('assigned_to=none&page=1&per_page=25');
    expect(ticketQuery(view('mine'), 'agent-7', page)).toBe('assigned_to=agent-7&page=1&per_page=25');
    expect(ticketQuery(view('open'), null, page)).toBe('status=open&page=1&per_page=25');
    expect(ticketQuery(view('pending'), null, { page: 3, perPage: 1 })).toBe('status=pending&page=3&per_page=1');
  });

  it('repeats a parameter for each value, and leaves out blank words', () => {
    const query = ticketQuery({ q: '  refund  ', priority: ['high', 'urgent'], tag: ['vip', 'billing'], customerEmail: ['a@b.c'], source: ['email'], sort: '-updated_at' }, null, page);
    expect(query).toBe('q=refund&priority=high&priority=urgent&tag=vip&tag=billing&customer_email=a%40b.c&source=email&sort=-updated_at&page=1&per_page=25');
    expect(ticketQuery({ q: '   ' }, null, page)).toBe('page=1&per_page=25');
  });

  it('cannot ask for "mine" before the agent says who they are', () => {
    expect(ticketQuery(view('mine'), null, page)).toBeNull();
    expect(ticketQuery({ assignedTo: [ME, 'none'] }, 'agent-7', page)).toBe('assigned_to=agent-7&assigned_to=none&page=1&per_page=25');
  });
});

describe('whether a changed ticket still fits a view', () => {
  it('tells by status, assignee (me, nobody), priority, source, customer (any case) and every tag', () => {
    expect(matchesFilter(ticket(), view('unassigned'), null)).toBe(true);
    expect(matchesFilter(ticket({ assignedTo: 'agent-7' }), view('unassigned'), null)).toBe(false);
    expect(matchesFilter(ticket({ assignedTo: 'agent-7' }), view('mine'), 'agent-7')).toBe(true);
    expect(matchesFilter(ticket({ assignedTo: 'agent-8' }), view('mine'), 'agent-7')).toBe(false);
    expect(matchesFilter(ticket({ status: 'pending' }), view('open'), null)).toBe(false);
    expect(matchesFilter(ticket({ priority: 'urgent' }), { priority: ['high', 'urgent'] }, null)).toBe(true);
    expect(matchesFilter(ticket(), { source: ['widget'] }, null)).toBe(false);
    expect(matchesFilter(ticket(), { customerEmail: ['dana@example.COM'] }, null)).toBe(true);
    expect(matchesFilter(ticket({ tags: ['vip'] }), { tag: ['vip', 'billing'] }, null)).toBe(false);
    expect(matchesFilter(ticket({ tags: ['billing', 'vip'] }), { tag: ['vip', 'billing'] }, null)).toBe(true);
  });

  it('cannot tell for a search by words: only the server knows what matches', () => {
    expect(matchesFilter(ticket(), { q: 'fire' }, null)).toBeUndefined();
  });
});

const event = (t: Ticket, type: LiveEvent['type'] = 'ticket.updated'): LiveEvent => ({ id: '1', type, ticketId: t.id, at: t.updatedAt, ticket: t });

describe('a list following the live feed', () => {
  const shown = [ticket({ id: 'a' }), ticket({ id: 'b' })];
  const later = '2026-03-02T10:00:00.000Z';

  it('changes a row in place at once', () => {
    const change = applyLiveEvent(shown, event(ticket({ id: 'b', priority: 'urgent', updatedAt: later })), view('unassigned'), null);
    expect(change.rows.map((t) => [t.id, t.priority])).toEqual([['a', 'medium'], ['b', 'urgent']]);
    expect(change.refetch).toBe(false);
  });

  it('drops a row that no longer fits, and reads the list again for its total', () => {
    const change = applyLiveEvent(shown, event(ticket({ id: 'a', assignedTo: 'agent-7', updatedAt: later })), view('unassigned'), null);
    expect(change.rows.map((t) => t.id)).toEqual(['b']);
    expect(change.refetch).toBe(true);
  });

  it('puts a new ticket that fits on top of the first page at once, newest first, and reads the list again', () => {
    const created = event(ticket({ id: 'c' }), 'ticket.created');
    expect(applyLiveEvent(shown, created, view('unassigned'), null, { page: 1, perPage: 2 })).toEqual({ rows: [created.ticket, shown[0]], refetch: true });
    // Elsewhere its place is the server's to say.
    for (const [filter, place] of [[view('unassigned'), { page: 2, perPage: 2 }], [{ sort: 'created_at' as const }, { page: 1, perPage: 2 }], [{ q: 'fire' }, { page: 1, perPage: 2 }]] as const) {
      expect(applyLiveEvent(shown, created, filter, null, place)).toEqual({ rows: shown, refetch: true });
    }
  });

  it('reads the list again for a ticket that may have come in, not for one that surely did not', () => {
    expect(applyLiveEvent(shown, event(ticket({ id: 'c' })), view('unassigned'), null)).toEqual({ rows: shown, refetch: true });
    expect(applyLiveEvent(shown, event(ticket({ id: 'c', status: 'solved' })), view('open'), null)).toEqual({ rows: shown, refetch: false });
    expect(applyLiveEvent(shown, event(ticket({ id: 'c' })), { q: 'printer' }, null).refetch).toBe(true);
  });

  it('keeps a row newer than the event, and reads again where the order may change', () => {
    const fresh = [ticket({ id: 'a', updatedAt: later, priority: 'high' })];
    expect(applyLiveEvent(fresh, event(ticket({ id: 'a' })), {}, null)).toEqual({ rows: fresh, refetch: false });
    expect(applyLiveEvent(shown, event(ticket({ id: 'a', updatedAt: later })), { sort: '-updated_at' }, null).refetch).toBe(true);
  });
});

describe('saved views', () => {
  it('are kept per workspace key, under its public part only', () => {
    expect(savedViewsKey('dfk_0123456789abcdef_SECRETsecretSECRETsecretSECRETsecretSECRETs')).toBe('deskflow.views.dfk_0123456789abcdef');
  });

  it('save a filter under a name, replace a view of the same name, and come back from storage', () => {
    const first = saveView([], 'VIP urgent', { priority: ['urgent'], tag: ['vip', ' ', 'vip'], q: ' ' }, 'x1');
    expect(first.id).toBe('saved-x1');
    expect(first.views).toEqual([{ id: 'saved-x1', name: 'VIP urgent', filter: { priority: ['urgent'], tag: ['vip'] }, saved: true }]);
    const again = saveView(first.views, ' vip URGENT ', { status: 'open' }, 'x2');
    expect(again.id).toBe('saved-x1');
    expect(again.views.map((v) => v.filter)).toEqual([{ status: 'open' }]);
    const both = saveView(again.views, 'Refunds', { q: 'refund', assignedTo: [ME] }, 'x3').views;
    expect(parseSavedViews(serializeSavedViews(both))).toEqual(both);
    expect(removeView(both, 'saved-x1').map((v) => v.name)).toEqual(['Refunds']);
  });

  it('leave out whatever in storage is not a view', () => {
    expect(parseSavedViews(null)).toEqual([]);
    expect(parseSavedViews('not json')).toEqual([]);
    expect(parseSavedViews('{"a":1}')).toEqual([]);
    const stored = JSON.stringify([{ id: 'v', name: 'Ok', filter: { status: 'open', priority: ['high', 3], sort: 'sideways', tag: 'x' } }, { id: 'w', name: '  ', filter: {} }, { id: 'v', name: 'Twice', filter: {} }, null]);
    expect(parseSavedViews(stored)).toEqual([{ id: 'v', name: 'Ok', filter: { status: 'open', priority: ['high'] }, saved: true }]);
  });

  it('compare filters as sets', () => {
    expect(sameFilter({ priority: ['high', 'urgent'], q: '' }, { priority: ['urgent', 'high'] })).toBe(true);
    expect(sameFilter({ status: 'open' }, { status: 'open', q: 'x' })).toBe(false);
  });
});

describe('a row', () => {
  it('says how old a ticket is, shortly', () => {
    const now = Date.parse('2026-03-02T09:00:00.000Z');
    const before = (s: number) => new Date(now - s * 1000).toISOString();
    expect([age(before(40), now), age(before(600), now), age(before(7200), now), age(before(3 * 86_400), now), age(before(30 * 86_400), now)]).toEqual(['40 s', '10 min', '2 h', '3 d', '4 w']);
  });

  it('names the assignee: nobody, the AI agent, or you', () => {
    expect([assigneeLabel(null, 'me'), assigneeLabel('ai', 'me'), assigneeLabel('me', 'me'), assigneeLabel('bo', 'me')]).toEqual(['unassigned', 'AI agent', 'me (you)', 'bo']);
  });
});
