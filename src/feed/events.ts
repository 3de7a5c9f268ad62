import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import { publicMessage } from '../messages/presenter.ts';
import { publicNote } from '../notes/presenter.ts';
import { publicTicket } from '../tickets/presenter.ts';
import { encodeCursor, type Position } from './cursor.ts';

/** What a client of GET /api/v1/events receives (`event:`). */
export const FEED_TYPES = ['ticket.created', 'ticket.updated', 'message.added', 'note.added'] as const;
export type FeedType = (typeof FEED_TYPES)[number];

/**
 * The outbox types the feed streams, by name, and what each becomes; every other type is not
 * streamed. `message_added` is a message that is not a customer reply (`{ ticket, message }`),
 * `note_added` an internal note (`{ ticket, note }`).
 */
export const STREAMED: Readonly<Record<string, FeedType>> = {
  ticket_created: 'ticket.created',
  ticket_updated: 'ticket.updated',
  ticket_closed: 'ticket.updated',
  tag_added: 'ticket.updated',
  message_received: 'message.added',
  message_added: 'message.added',
  note_added: 'note.added',
};
export const STREAMED_TYPES: readonly string[] = Object.keys(STREAMED);

/** The `data:` of every event, as JSON. */
export const feedEventData = z
  .strictObject({
    type: z.enum(FEED_TYPES),
    ticketId: uuid(),
    at: timestamp().meta({ description: 'When the change was made.' }),
    ticket: publicTicket,
    message: publicMessage.optional(),
    note: publicNote.optional(),
  })
  .meta({
    id: 'FeedEvent',
    description:
      'The `data:` of an event of GET /api/v1/events: `ticket` as the change left it (the fields GET /api/v1/tickets/:id answers), ' +
      '`message` on `message.added`, `note` on `note.added`.',
  });

/** An outbox row as the feed reads it; `payload` is null where the reader did not ask for it. */
export type OutboxRow = {
  position: Position;
  workspaceId: string;
  type: string;
  ticketId: string | null;
  payload: Record<string, unknown> | null;
};

/** One event, ready to send: `frame` is its whole SSE text, written as is to every client of its workspace. */
export type FeedEvent = { position: Position; workspaceId: string; type: FeedType; cursor: string; frame: string };

const TICKET_FIELDS = Object.keys(publicTicket.shape);
const MESSAGE_FIELDS = Object.keys(publicMessage.shape);
const NOTE_FIELDS = Object.keys(publicNote.shape);

/**
 * The events of outbox rows, in their order. A row of another type, or without the ticket
 * its type carries, is left out. An event that repeats the one before it in the same
 * transaction (a close writes ticket_updated and ticket_closed with the same ticket) is sent
 * once, with the later row's cursor.
 */
export function feedEvents(rows: readonly OutboxRow[]): FeedEvent[] {
  const events: FeedEvent[] = [];
  let previous: { workspaceId: string; txid: bigint; data: string } | null = null;
  for (const row of rows) {
    const type = STREAMED[row.type];
    const data = type && row.payload ? eventData(type, row) : null;
    if (!type || data === null) continue;
    const event: FeedEvent = {
      position: row.position,
      workspaceId: row.workspaceId,
      type,
      cursor: encodeCursor(row.position),
      frame: '',
    };
    event.frame = `id: ${event.cursor}\nevent: ${type}\ndata: ${data}\n\n`;
    if (previous && previous.workspaceId === row.workspaceId && previous.txid === row.position.txid && previous.data === data) events.pop();
    events.push(event);
    previous = { workspaceId: row.workspaceId, txid: row.position.txid, data };
  }
  return events;
}

/** The JSON of an event's `data:` (one line: JSON.stringify escapes line breaks), or null when the row lacks what its type carries. */
function eventData(type: FeedType, row: OutboxRow): string | null {
  const payload = row.payload!;
  const ticket = pick(payload.ticket, TICKET_FIELDS);
  const ticketId = row.ticketId ?? (ticket?.id as string | undefined);
  if (!ticket || !ticketId) return null;
  const data: Record<string, unknown> = { type, ticketId, at: new Date(row.position.at).toISOString(), ticket };
  if (type === 'message.added') {
    const message = pick(payload.message, MESSAGE_FIELDS);
    if (!message) return null;
    data.message = message;
  } else if (type === 'note.added') {
    const note = pick(payload.note, NOTE_FIELDS);
    if (!note) return null;
    data.note = note;
  }
  return JSON.stringify(data);
}

/** The public fields of an object of the payload (internal ones, such as a ticket's language, stay out). */
function pick(value: unknown, fields: readonly string[]): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const source = value as Record<string, unknown>;
  return Object.fromEntries(fields.filter((f) => f in source).map((f) => [f, source[f]]));
}
