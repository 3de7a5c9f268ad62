import { describe, expect, it } from 'vitest';
import { decodeCursor } from '../../../src/feed/cursor.ts';
import { feedEvents, type OutboxRow } from '../../../src/feed/events.ts';

const WORKSPACE = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const TICKET_ID = '0b6d1f2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const AT = Date.parse('2026-11-28T09:00:00.123Z');

/** The ticket as the services write it into events: the public fields and the language. */
const ticket = (overrides: Record<string, unknown> = {}) => ({
  id: TICKET_ID,
  subject: 'Printer on fire',
  status: 'open',
  priority: 'medium',
  customerEmail: 'casey@example.com',
  customerName: 'Casey',
  source: 'email',
  assignedTo: null,
  resolutionType: null,
  tags: [],
  createdAt: '2026-11-28T08:00:00.000Z',
  updatedAt: '2026-11-28T09:00:00.123Z',
  language: 'en',
  ...overrides,
});
const { language: _language, ...publicTicket } = ticket();

const message = {
  id: '7c6d5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f',
  ticketId: TICKET_ID,
  direction: 'outbound',
  senderEmail: 'agent@example.com',
  senderName: 'Agent',
  body: 'On it.',
  bodyHtml: null,
  createdAt: '2026-11-28T09:00:00.123Z',
};
const note = { id: '3f2b8c1e-6d4a-4f7b-9c2e-8a1d5b7e4c90', ticketId: TICKET_ID, authorId: 'agent-1', body: 'Call back at 3.', createdAt: '2026-11-28T09:00:00.123Z' };

let next = 0;
const row = (type: string, payload: Record<string, unknown> | null, opts: { txid?: bigint; workspaceId?: string } = {}): OutboxRow => ({
  position: { txid: opts.txid ?? BigInt(1000 + ++next), at: AT, id: `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}` },
  workspaceId: opts.workspaceId ?? WORKSPACE,
  type,
  ticketId: TICKET_ID,
  payload: payload && { ...payload, cause: { type: 'api' } },
});

/** An SSE frame as a client's parser reads it. */
const parse = (frame: string) => {
  expect(frame.endsWith('\n\n')).toBe(true);
  const lines = frame.slice(0, -2).split('\n');
  expect(lines.map((l) => l.slice(0, l.indexOf(':')))).toEqual(['id', 'event', 'data']);
  const [id, event, data] = lines.map((l) => l.slice(l.indexOf(':') + 2));
  return { id, event, data: JSON.parse(data) };
};

describe('outbox rows as feed events', () => {
  it('maps each streamed outbox type by name, including message_added and note_added', () => {
    const rows = [
      row('ticket_created', { ticket: ticket() }),
      row('ticket_updated', { ticket: ticket(), previous: ticket(), changes: { priority: { from: 'low', to: 'medium' } } }),
      row('ticket_closed', { ticket: ticket({ status: 'closed' }) }),
      row('tag_added', { ticket: ticket({ tags: ['vip'] }), tag: 'vip' }),
      row('message_received', { ticket: ticket(), message: { ...message, direction: 'inbound' } }),
      row('message_added', { ticket: ticket(), message }),
      row('note_added', { ticket: ticket(), note }),
    ];
    const events = feedEvents(rows);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.updated', 'ticket.updated', 'message.added', 'message.added', 'note.added']);
    expect(events.map((e) => parse(e.frame).event)).toEqual(events.map((e) => e.type));
    expect(parse(events[5].frame).data).toEqual({ type: 'message.added', ticketId: TICKET_ID, at: '2026-11-28T09:00:00.123Z', ticket: publicTicket, message });
    expect(parse(events[6].frame).data).toEqual({ type: 'note.added', ticketId: TICKET_ID, at: '2026-11-28T09:00:00.123Z', ticket: publicTicket, note });
    expect(parse(events[3].frame).data.ticket.tags).toEqual(['vip']);
  });

  it('carries each event’s cursor as its id and its position, and sends only public fields', () => {
    const source = row('ticket_created', { ticket: ticket({ internalNote: 'x' }) }, { txid: 4242n });
    const [event] = feedEvents([source]);
    expect(event).toMatchObject({ position: source.position, workspaceId: WORKSPACE, type: 'ticket.created' });
    const { id, data } = parse(event.frame);
    expect(id).toBe(event.cursor);
    expect(decodeCursor(id)).toEqual({ txid: 4242n, id: source.position.id });
    // The ticket's language, the event's cause and anything else internal stay out.
    expect(Object.keys(data).sort()).toEqual(['at', 'ticket', 'ticketId', 'type']);
    expect(data.ticket).toEqual(publicTicket);
  });

  it('leaves out other outbox types, rows read without their payload, and rows without the ticket or message their type carries', () => {
    const events = feedEvents([
      row('sla_breached', { ticket: ticket() }),
      row('ticket_created', null),
      row('ticket_updated', { changes: {} }),
      row('message_received', { ticket: ticket() }),
      row('note_added', { ticket: ticket(), note: 'not an object' }),
      row('ticket_created', { ticket: ticket() }),
    ]);
    expect(events.map((e) => e.type)).toEqual(['ticket.created']);
  });

  it('sends one event for outbox rows of one transaction that say the same (an update and its close), with the later cursor', () => {
    const closed = ticket({ status: 'closed' });
    const update = row('ticket_updated', { ticket: closed, changes: { status: { from: 'open', to: 'closed' } } }, { txid: 77n });
    const close = row('ticket_closed', { ticket: closed }, { txid: 77n });
    expect(feedEvents([update, close]).map((e) => e.position)).toEqual([close.position]);
    // The same in two transactions, or different tickets in one, are two events.
    expect(feedEvents([update, row('ticket_closed', { ticket: closed }, { txid: 78n })])).toHaveLength(2);
    expect(feedEvents([update, row('tag_added', { ticket: ticket({ status: 'closed', tags: ['vip'] }), tag: 'vip' }, { txid: 77n })])).toHaveLength(2);
    // A customer's reply that reopens the ticket: the update and the message both.
    const reopened = ticket({ status: 'open' });
    expect(feedEvents([row('ticket_updated', { ticket: reopened }, { txid: 80n }), row('message_received', { ticket: reopened, message }, { txid: 80n })]).map((e) => e.type)).toEqual([
      'ticket.updated',
      'message.added',
    ]);
  });
});
