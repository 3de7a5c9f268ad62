// The live feed as the console reads it (console/src/model/live.ts): server-sent events parsed
// from chunks cut anywhere, ticket events checked, and the waits before connecting again.
import { describe, expect, it } from 'vitest';
import { BACKOFF_MAX_MS, backoffMs, liveEventOf, newSseParser, parseSse, type SseEvent } from '../../../console/src/model/live.ts';

const ticket = { id: 't1', subject: 'Hi', status: 'open', updatedAt: '2026-03-02T09:00:00.000Z' };
const stream = [
  ': keep-alive\n\n',
  'id: c1\nevent: ticket.updated\ndata: ' + JSON.stringify({ type: 'ticket.updated', ticketId: 't1', at: '2026-03-02T09:00:00.000Z', ticket }) + '\n\n',
  'id: c2\r\nevent: note.added\r\ndata: ' + JSON.stringify({ type: 'note.added', ticketId: 't1', at: 'x', ticket, note: { id: 'n1', ticketId: 't1', authorId: 'a', body: 'b', createdAt: 'x' } }) + '\r\n\r\n',
].join('');

/** Every event of `text` fed in pieces of `size` characters. */
function parseInPieces(text: string, size: number): SseEvent[] {
  let parser = newSseParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < text.length; i += size) {
    const r = parseSse(parser, text.slice(i, i + size));
    parser = r.parser;
    events.push(...r.events);
  }
  return events;
}

describe('server-sent events', () => {
  it('are the same however the stream is cut, CRLF or LF, keep-alive comments skipped', () => {
    const whole = parseInPieces(stream, stream.length);
    expect(whole.map((e) => [e.id, e.event])).toEqual([['c1', 'ticket.updated'], ['c2', 'note.added']]);
    for (const size of [1, 2, 3, 7, 64]) expect(parseInPieces(stream, size)).toEqual(whole);
  });

  it('join data lines with a newline, and keep the last id for events without one', () => {
    expect(parseInPieces('id: 5\ndata: a\ndata:b\n\ndata: c\n\n', 4)).toEqual([
      { id: '5', event: 'message', data: 'a\nb' },
      { id: '5', event: 'message', data: 'c' },
    ]);
  });

  it('hold an event back until its blank line arrives', () => {
    const first = parseSse(newSseParser(), 'event: ticket.created\ndata: {}\n');
    expect(first.events).toEqual([]);
    expect(parseSse(first.parser, '\n').events).toEqual([{ id: null, event: 'ticket.created', data: '{}' }]);
  });
});

describe('ticket events', () => {
  it('carry the ticket as it is now, and the note or message added', () => {
    const [updated, noted] = parseInPieces(stream, 5).map(liveEventOf);
    expect(updated).toMatchObject({ id: 'c1', type: 'ticket.updated', ticketId: 't1', ticket });
    expect(noted).toMatchObject({ id: 'c2', type: 'note.added', note: { id: 'n1' } });
  });

  it('are nothing when of another type, not JSON, or without their ticket (or note, or message)', () => {
    const ev = (event: string, data: unknown) => liveEventOf({ id: null, event, data: typeof data === 'string' ? data : JSON.stringify(data) });
    expect(ev('ping', { ticketId: 't1', ticket })).toBeNull();
    expect(ev('ticket.updated', '{not json')).toBeNull();
    expect(ev('ticket.updated', { ticketId: 't1' })).toBeNull();
    expect(ev('ticket.updated', { ticketId: 't2', ticket })).toBeNull();
    expect(ev('message.added', { ticketId: 't1', ticket })).toBeNull();
    expect(ev('note.added', { ticketId: 't1', ticket, note: 'x' })).toBeNull();
  });
});

describe('connecting again', () => {
  it('waits longer after each failure, up to 30 s, never less than half the step', () => {
    const lowest = [1, 2, 3, 4, 10, 100].map((n) => backoffMs(n, 0));
    const highest = [1, 2, 3, 4, 10, 100].map((n) => backoffMs(n, 0.999999));
    expect(lowest).toEqual([250, 500, 1000, 2000, 15_000, 15_000]);
    expect(highest).toEqual([500, 1000, 2000, 4000, BACKOFF_MAX_MS, BACKOFF_MAX_MS]);
  });
});
