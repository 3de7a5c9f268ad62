// GET /api/v1/events: the live feed of a workspace's ticket changes, as server-sent events read
// with fetch streaming, against the real app and PostgreSQL.
import pg from 'pg';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { eventsInsert } from '../../src/events/outbox.ts';
import { ticketContext } from '../../src/tickets/context.ts';
import { readTicket } from '../../src/tickets/store.ts';
import { API_ACTOR } from '../../src/actor.ts';
import { encodeCursor } from '../../src/feed/cursor.ts';
import { createLogger } from '../../src/logger.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { createTicket, getTicket, readMessages } from '../helpers/api.ts';
import { EventStreamClient, refusal, type StreamedEvent } from '../helpers/event-stream.ts';
import { expectError, ISO_UTC, keysOf, MESSAGE_FIELDS, TICKET_FIELDS } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';

const logLines: Array<Record<string, unknown>> = [];
const app = useTestApp(
  { logger: createLogger('info', (line) => logLines.push(JSON.parse(line))) },
  { feed: { streamsPerWorkspace: 5, stream: { keepAliveMs: 300 } } },
);
const { ws, api } = useWorkspace(app);

const open = (opts: Parameters<typeof EventStreamClient.open>[1] = {}) => EventStreamClient.open(app.baseUrl, { key: ws.key, ...opts });
const summary = (events: StreamedEvent[]) => events.map((e) => `${e.event} ${e.data.ticketId}`);

describe('GET /api/v1/events', () => {
  it('streams a ticket created, updated (PATCH) and a customer message, each with the ticket as GET answers it', async () => {
    const stream = await open();
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');

    const { id } = await createTicket(api);
    const committedAt = Date.now();
    const [created] = await stream.next(0, 1);
    // Within 2 s of the commit (in practice milliseconds: the outbox's notification wakes the feed).
    expect(Date.now() - committedAt).toBeLessThan(2_000);
    expect(created.event).toBe('ticket.created');
    expect(keysOf(created.data)).toEqual(['at', 'ticket', 'ticketId', 'type']);
    expect(created.data).toMatchObject({ type: 'ticket.created', ticketId: id });
    expect(created.data.at).toMatch(ISO_UTC);
    expect(created.data.ticket).toEqual(await getTicket(api, id));

    expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'urgent' })).status).toBe(200);
    const [updated] = await stream.next(1, 1);
    expect(updated).toMatchObject({ event: 'ticket.updated', data: { type: 'ticket.updated', ticketId: id } });
    expect(keysOf(updated.data.ticket)).toEqual(TICKET_FIELDS);
    expect(updated.data.ticket).toEqual(await getTicket(api, id));
    expect(updated.data.at).toBe(updated.data.ticket.updatedAt);

    // A customer's reply (message_received in the outbox) is a message.added with the message as GET …/messages lists it.
    expect((await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Still smoking.', senderEmail: 'customer@example.com' })).status).toBe(201);
    const [added] = await stream.next(2, 1);
    expect(added).toMatchObject({ event: 'message.added', data: { type: 'message.added', ticketId: id } });
    expect(keysOf(added.data)).toEqual(['at', 'message', 'ticket', 'ticketId', 'type']);
    expect(keysOf(added.data.message)).toEqual(MESSAGE_FIELDS);
    expect(added.data.message).toEqual((await readMessages(api, id)).at(-1));
    expect(added.data.ticket).toEqual(await getTicket(api, id));

    // Each event's id is an opaque cursor, distinct from the others.
    const ids = stream.events.map((e) => e.id);
    for (const cursor of ids) expect(cursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('streams an agent’s reply as message.added, a note as note.added and a tag added or removed as ticket.updated', async () => {
    await new WorkspaceService(app.orm.em.fork()).addMember(ws.workspaceId, 'agent-feed', 'member');
    const { id } = await createTicket(api);
    const stream = await open();

    expect((await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-feed', body: 'We are on it.' })).status).toBe(201);
    const [reply] = await stream.next(0, 1);
    expect(reply).toMatchObject({ event: 'message.added', data: { ticketId: id, message: { direction: 'outbound', body: 'We are on it.' } } });
    expect(reply.data.message).toEqual((await readMessages(api, id)).at(-1));

    const note = await api.post(`/api/v1/tickets/${id}/notes`, { authorId: 'agent-feed', body: 'Customer is on the premium plan.' });
    expect(note.status).toBe(201);
    const [noted] = await stream.next(1, 1);
    expect(noted).toMatchObject({ event: 'note.added', data: { ticketId: id } });
    expect(keysOf(noted.data)).toEqual(['at', 'note', 'ticket', 'ticketId', 'type']);
    expect(noted.data.note).toEqual(note.body.data);

    expect((await api.post(`/api/v1/tickets/${id}/tags`, { tag: 'vip' })).status).toBe(200);
    expect((await api.delete(`/api/v1/tickets/${id}/tags/vip`)).status).toBe(200);
    const [tagged, untagged] = await stream.next(2, 2);
    expect([tagged.event, tagged.data.ticket.tags]).toEqual(['ticket.updated', ['vip']]);
    expect([untagged.event, untagged.data.ticket.tags]).toEqual(['ticket.updated', []]);
  });

  it('sends a close once, as ticket.updated: the update and the close carry the same ticket', async () => {
    const { id } = await createTicket(api);
    const stream = await open();
    expect((await api.patch(`/api/v1/tickets/${id}`, { status: 'closed' })).status).toBe(200);
    // A change afterwards shows that nothing else was coming for the close.
    expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'low' })).status).toBe(200);
    const events = await stream.next(0, 2);
    expect(events.map((e) => [e.event, e.data.ticket.status, e.data.ticket.priority])).toEqual([
      ['ticket.updated', 'closed', 'medium'],
      ['ticket.updated', 'closed', 'low'],
    ]);
  });

  it('gives a client only its own workspace’s events', async () => {
    const other = await newWorkspace(app);
    const theirs = await EventStreamClient.open(app.baseUrl, { key: other.ws.key });
    const ours = await open();
    const mine = await createTicket(api, { subject: 'Ours' });
    await ours.next(0, 1);
    const foreign = await createTicket(other.api, { subject: 'Theirs' });
    const [first] = await theirs.next(0, 1);
    // Their first event is their own ticket: ours, created before it, never reached them.
    expect(summary([first])).toEqual([`ticket.created ${foreign.id}`]);
    expect(summary(ours.events)).toEqual([`ticket.created ${mine.id}`]);
  });

  it('resumes after Last-Event-ID with exactly the events missed, in order, then goes on live', async () => {
    const watcher = await open();
    const { id } = await createTicket(api);
    const first = await open();
    expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'high' })).status).toBe(200);
    const [seen] = await first.next(0, 1);
    first.close();

    // While the client is away: a new ticket, an update, a customer message.
    const second = await createTicket(api, { subject: 'While away' });
    expect((await api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'ai' })).status).toBe(200);
    expect((await api.post(`/api/v1/tickets/${second.id}/messages`, { body: 'Hello?', senderEmail: 'customer@example.com' })).status).toBe(201);
    const everything = await watcher.next(0, 5);
    const missed = everything.slice(2);

    const resumed = await open({ lastEventId: seen.id });
    expect(await resumed.next(0, 3)).toEqual(missed);
    // …then live, without a gap.
    expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'low' })).status).toBe(200);
    const [live] = await resumed.next(3, 1);
    expect(live).toEqual((await watcher.next(5, 1))[0]);

    // The query parameter does the same for clients that cannot set the header.
    const viaQuery = await open({ query: `last_event_id=${seen.id}` });
    expect(await viaQuery.next(0, 4)).toEqual([...missed, live]);
    // A cursor of the newest event gives nothing old.
    const fromLast = await open({ lastEventId: live.id });
    await createTicket(api, { subject: 'After all that' });
    expect(summary(await fromLast.next(0, 1))).toEqual([summary(await watcher.next(6, 1))[0]]);
  });

  it('never passes over an event a long transaction commits after later ones', async () => {
    const { id } = await createTicket(api);
    const stream = await open();
    const ticket = await readTicket(app.orm.em.fork(), ws.workspaceId, id);
    const late = new pg.Client({ connectionString: inject('databaseUrl') });
    await late.connect();
    try {
      // The long transaction writes its event first (it has the older transaction id)…
      await late.query('begin');
      const insert = eventsInsert([
        { workspaceId: ws.workspaceId, type: 'ticket_updated', ticketId: id, payload: { ticket: { ...ticketContext(ticket), subject: 'Written by a long transaction' } }, actor: API_ACTOR, at: new Date() },
      ]);
      await late.query(insert.text, insert.parameters);
      // …then a quick one commits.
      expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'high' })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(stream.events).toEqual([]);
      await late.query('commit');
    } finally {
      await late.end();
    }
    const events = await stream.next(0, 2);
    expect(events.map((e) => [e.event, e.data.ticket.subject, e.data.ticket.priority])).toEqual([
      ['ticket.updated', 'Written by a long transaction', 'medium'],
      ['ticket.updated', 'Printer is on fire', 'high'],
    ]);
    // A client that resumes after the late one still gets the quick one.
    const resumed = await open({ lastEventId: events[0].id });
    expect(await resumed.next(0, 1)).toEqual([events[1]]);
  });

  it('answers HEAD with the stream’s headers, without opening one', async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/events`, { method: 'HEAD', headers: { authorization: `Bearer ${ws.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  it('answers 401 without a valid key, before any stream', async () => {
    expectError(await refusal(app.baseUrl, {}), 401, 'unauthorized');
    expectError(await refusal(app.baseUrl, { key: 'dfk_0000000000000000_notakeynotakeynotakeynotakeynotakeynotakey1' }), 401, 'unauthorized');
  });

  it('answers 400 naming the cursor that is malformed or not one of the workspace’s events', async () => {
    const { id } = await createTicket(api);
    const stream = await open();
    expect((await api.patch(`/api/v1/tickets/${id}`, { priority: 'high' })).status).toBe(200);
    const [event] = await stream.next(0, 1);
    const other = await newWorkspace(app);

    const cases: Array<[Parameters<typeof EventStreamClient.open>[1], string]> = [
      [{ lastEventId: 'not-a-cursor' }, 'Last-Event-ID'],
      [{ lastEventId: `${event.id}x` }, 'Last-Event-ID'],
      [{ query: 'last_event_id=abc' }, 'last_event_id'],
      // Well formed, but of a transaction that has not happened yet.
      [{ lastEventId: encodeCursor({ txid: 2n ** 62n, id: UNKNOWN_ID }) }, 'Last-Event-ID'],
      // Another workspace's event.
      [{ key: other.ws.key, lastEventId: event.id }, 'Last-Event-ID'],
    ];
    for (const [opts, name] of cases) {
      const refused = await refusal(app.baseUrl, { key: ws.key, ...opts });
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.error.details, JSON.stringify(opts)).toEqual([{ path: name, message: expect.stringContaining(name) }]);
    }
    const unknownParameter = await refusal(app.baseUrl, { key: ws.key, query: 'since=yesterday' });
    expectError(unknownParameter, 400, 'validation_failed');
    expect(unknownParameter.body.error.details).toEqual([{ path: 'since', message: 'Unknown query parameter "since".' }]);
  });

  it('sends a keep-alive comment on a quiet stream', async () => {
    const stream = await open();
    // This app sends one every 300 ms; the server's default is every 15 seconds.
    await expect.poll(() => stream.comments.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    expect(new Set(stream.comments)).toEqual(new Set(['keep-alive']));
    expect(stream.events).toEqual([]);
  });

  it('refuses a stream beyond the workspace’s limit with 429 too_many_streams, and takes one again once one closes', async () => {
    const { ws: crowded } = await newWorkspace(app);
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await EventStreamClient.open(app.baseUrl, { key: crowded.key }));
    const refused = await refusal(app.baseUrl, { key: crowded.key });
    expectError(refused, 429, 'too_many_streams');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.error.message).toMatch(/5 open event streams/);
    // Other workspaces are not held back by it.
    (await open()).close();
    streams[0].close();
    await expect.poll(async () => (await refusal(app.baseUrl, { key: crowded.key }).then(() => 'refused', () => 'opened')), { timeout: 5_000 }).toBe('opened');
  });

  it('ends the stream of a key that is revoked', async () => {
    const { ws: revoked } = await newWorkspace(app);
    const stream = await EventStreamClient.open(app.baseUrl, { key: revoked.key });
    expect(await new WorkspaceService(app.orm.em.fork()).revokeKey(revoked.keyId)).toBe(true);
    await stream.ended;
    expectError(await refusal(app.baseUrl, { key: revoked.key }), 401, 'unauthorized');
  });

  it('logs a stream as one successful request, when it opens', async () => {
    const stream = await open({ headers: { 'x-request-id': 'feed-log-check' } });
    stream.close();
    const line = logLines.find((l) => l.requestId === 'feed-log-check');
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', route: '/api/v1/events', status: 200 });
    expect(logLines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
  });
});
