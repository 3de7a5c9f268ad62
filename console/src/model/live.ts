// The live feed (GET /api/v1/events) as the console reads it: server-sent events parsed from the
// text as it streams in, each checked to be a ticket event, and how long to wait before
// connecting again after the feed broke. Pure (the chunks, the attempt and the randomness are
// passed in); the connection itself is console/src/live/feed.ts. Unit-tested in
// test/unit/console/live.test.ts.

import type { Message, Note, Ticket } from '../api-types.ts';

/** One event as the stream spells it (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export type SseEvent = { id: string | null; event: string; data: string };

export type SseParser = { buffer: string; id: string | null; event: string; data: string[] };

export const newSseParser = (): SseParser => ({ buffer: '', id: null, event: '', data: [] });

/**
 * Feeds `chunk` (text as it arrived, perhaps mid-line) to the parser: the events it completes,
 * and the parser to feed the next chunk to. Comments (`: keep-alive`) and fields it does not
 * know are skipped; an event without data is none.
 */
export function parseSse(parser: SseParser, chunk: string): { parser: SseParser; events: SseEvent[] } {
  const text = parser.buffer + chunk;
  const lines = text.split(/\r\n|\r|\n/);
  // The last piece has no line end yet (or is empty after one): kept for the next chunk. A CR
  // at the very end may be the first half of a CRLF, so it waits too.
  let buffer = lines.pop() ?? '';
  if (text.endsWith('\r')) buffer = `${lines.pop() ?? ''}\r`;
  let { id, event, data } = parser;
  data = [...data];
  const events: SseEvent[] = [];
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) events.push({ id, event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }
  return { parser: { buffer, id, event, data }, events };
}

export const LIVE_EVENT_TYPES = ['ticket.created', 'ticket.updated', 'message.added', 'note.added'] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

/** A change to a ticket, with the ticket as it is after it (and the message or note added). */
export type LiveEvent = {
  id: string | null;
  type: LiveEventType;
  ticketId: string;
  at: string;
  ticket: Ticket;
  message?: Message;
  note?: Note;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ticket event an SSE event carries; null for anything else (another type, data that is not one). */
export function liveEventOf(sse: SseEvent): LiveEvent | null {
  if (!(LIVE_EVENT_TYPES as readonly string[]).includes(sse.event)) return null;
  let data: unknown;
  try {
    data = JSON.parse(sse.data);
  } catch {
    return null;
  }
  if (!isObject(data) || typeof data.ticketId !== 'string' || !isObject(data.ticket) || typeof data.ticket.id !== 'string') return null;
  if (data.ticket.id !== data.ticketId) return null;
  const type = sse.event as LiveEventType;
  if (type === 'message.added' && !isObject(data.message)) return null;
  if (type === 'note.added' && !isObject(data.note)) return null;
  return {
    id: sse.id,
    type,
    ticketId: data.ticketId,
    at: typeof data.at === 'string' ? data.at : (data.ticket.updatedAt as string),
    ticket: data.ticket as Ticket,
    ...(isObject(data.message) ? { message: data.message as Message } : {}),
    ...(isObject(data.note) ? { note: data.note as Note } : {}),
  };
}

/** The first wait after a broken feed, and the longest. */
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 30_000;

/**
 * How long to wait before connecting again after `failures` broken connections in a row:
 * doubling from half a second up to 30 s, each wait drawn between half and all of that
 * (`random` in [0, 1)), so that many tabs cut off together do not come back together.
 */
export function backoffMs(failures: number, random: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}

/** What the page says of the feed: following it, trying to (again), or without it (refreshing slowly). */
export type FeedState = 'connecting' | 'live' | 'down';
