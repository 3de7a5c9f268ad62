// A ticket's page (console/src/model/ticket-view.ts): its conversation with notes in line, the
// agent's own writes and the live feed's events, each shown once.
import { describe, expect, it } from 'vitest';
import type { Message, Note, Ticket } from '../../../console/src/api-types.ts';
import type { LiveEvent } from '../../../console/src/model/live.ts';
import { composerProblem, initialTicketView, tagToAdd, ticketViewReducer, timeline, type TicketViewAction, type TicketViewState } from '../../../console/src/model/ticket-view.ts';

const at = (minute: number) => `2026-03-02T09:${String(minute).padStart(2, '0')}:00.000Z`;
const ticket = (over: Partial<Ticket> = {}): Ticket => ({
  id: 't1',
  subject: 'Printer on fire',
  status: 'open',
  priority: 'medium',
  customerEmail: 'dana@example.com',
  customerName: 'Dana',
  source: 'email',
  assignedTo: null,
  resolutionType: null,
  tags: [],
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});
const message = (id: string, minute: number, direction: Message['direction'] = 'inbound'): Message => ({ id, ticketId: 't1', direction, senderEmail: 'dana@example.com', senderName: null, body: id, bodyHtml: null, createdAt: at(minute) });
const note = (id: string, minute: number): Note => ({ id, ticketId: 't1', authorId: 'agent-7', body: id, createdAt: at(minute) });

const run = (state: TicketViewState, ...actions: TicketViewAction[]) => actions.reduce(ticketViewReducer, state);
const loaded = () => run(initialTicketView(), { type: 'loaded', ticket: ticket(), messages: { data: [message('m1', 1), message('m3', 3)], total: 2, truncated: false }, notes: [note('n2', 2)] });
const live = (type: LiveEvent['type'], t: Ticket, extra: Partial<LiveEvent> = {}): TicketViewAction => ({ type: 'live', event: { id: 'c', type, ticketId: t.id, at: t.updatedAt, ticket: t, ...extra } });
const order = (state: TicketViewState) => timeline(state).map((e) => (e.kind === 'message' ? e.message.id : e.note.id));

describe('the conversation', () => {
  it('shows messages and notes in one line, by time', () => {
    expect(order(loaded())).toEqual(['m1', 'n2', 'm3']);
  });

  it('holds back notes older than the oldest message read, until the older messages are', () => {
    const partial = run(initialTicketView(), { type: 'loaded', ticket: ticket(), messages: { data: [message('m3', 3)], total: 2, truncated: true }, notes: [note('n2', 2), note('n4', 4)] });
    expect(order(partial)).toEqual(['m3', 'n4']);
    const all = run(partial, { type: 'olderMessages', messages: { data: [message('m1', 1)], total: 2, truncated: false } });
    expect(order(all)).toEqual(['m1', 'n2', 'm3', 'n4']);
  });
});

describe('writes and the live feed', () => {
  it('adds a reply and a note once, whether the API\'s answer or the feed brings it first', () => {
    const reply = message('m5', 5, 'outbound');
    const state = run(loaded(), { type: 'message', message: reply }, live('message.added', ticket({ updatedAt: at(5) }), { message: reply }), live('note.added', ticket({ updatedAt: at(6) }), { note: note('n6', 6) }), { type: 'note', note: note('n6', 6) });
    expect(order(state)).toEqual(['m1', 'n2', 'm3', 'm5', 'n6']);
    expect(state.messageTotal).toBe(3);
  });

  it('shows the ticket as changed anywhere, but never an older copy over a newer one', () => {
    const solved = run(loaded(), live('ticket.updated', ticket({ status: 'solved', updatedAt: at(7) })));
    expect(solved.ticket?.status).toBe('solved');
    const stale = run(solved, { type: 'ticket', ticket: ticket({ status: 'pending', updatedAt: at(6) }) });
    expect(stale.ticket?.status).toBe('solved');
    const tagged = run(solved, { type: 'ticket', ticket: ticket({ status: 'solved', tags: ['vip'], updatedAt: at(8) }) });
    expect(tagged.ticket?.tags).toEqual(['vip']);
  });

  it('ignores the events of other tickets', () => {
    const state = loaded();
    const other = ticket({ id: 't2', status: 'solved', updatedAt: at(9) });
    expect(run(state, live('ticket.updated', other), live('message.added', other, { message: { ...message('x', 9), ticketId: 't2' } }))).toBe(state);
  });
});

describe('the composer and the tags', () => {
  it('says what is missing before sending: who the agent is, or the text', () => {
    expect(composerProblem('Hello', null, 'reply')).toMatch(/Choose who you are/);
    expect(composerProblem('  ', 'agent-7', 'reply')).toBe('Write the reply first.');
    expect(composerProblem('', 'agent-7', 'note')).toBe('Write the note first.');
    expect(composerProblem('Hello', 'agent-7', 'note')).toBeNull();
  });

  it('adds a tag as typed, trimmed, unless blank or already there', () => {
    expect(tagToAdd('  vip ', [])).toEqual({ tag: 'vip' });
    expect(tagToAdd('   ', [])).toEqual({ problem: 'Type a tag to add.' });
    expect(tagToAdd('vip', ['vip'])).toEqual({ problem: 'The ticket is tagged "vip" already.' });
  });
});
