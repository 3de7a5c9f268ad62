import Router from '@koa/router';
import { z } from 'zod';
import { unavailable, validationFailed } from '../errors.ts';
import type { AppState } from '../http/state.ts';
import { operation } from '../http/operation.ts';
import { queryParam } from '../http/validate.ts';
import type { Logger } from '../logger.ts';
import type { KeyAuthenticator } from '../workspaces/key-cache.ts';
import { decodeCursor, type Position } from './cursor.ts';
import { feedEventData } from './events.ts';
import type { EventFeed } from './hub.ts';
import { EventStream } from './stream.ts';

const eventsQuery = z.strictObject({
  last_event_id: queryParam('last_event_id')
    .optional()
    .meta({ description: 'For clients that cannot send the `Last-Event-ID` header: the id of the last event received. The header wins when both are sent.' }),
});

const eventsHeaders = z.object({
  'Last-Event-ID': z.string().optional().meta({ description: 'The id of the last event received: the stream resumes after it.' }),
});

const stream = operation({
  operationId: 'streamEvents',
  summary: 'Stream the workspace’s ticket events (server-sent events)',
  tag: 'Events',
  description: [
    'A `text/event-stream` of the changes to the key’s workspace, as they commit: `ticket.created`, `ticket.updated`, `message.added`, `note.added`.',
    'Each event is `id: <cursor>`, `event: <type>`, `data: <FeedEvent as JSON>`; a `: keep-alive` comment comes every 15 seconds.',
    'Without a cursor the stream starts with what happens after it opened. With `Last-Event-ID` (or `last_event_id`) it first sends every event after that one',
    'that the server still holds, in order, then the live ones: nothing is missed, nothing is sent twice. A cursor older than what is held resumes from the oldest held event.',
    'The stream ends when the server stops, the key is revoked, or the client leaves more than 1 MiB unread: reconnect with the last id.',
    'Each server takes a limited number of open streams per workspace (429 `too_many_streams` beyond it).',
  ].join(' '),
  query: eventsQuery,
  headers: eventsHeaders,
  responses: { 200: { description: 'The event stream; each event’s `data` is a FeedEvent.', schema: feedEventData, contentType: 'text/event-stream' } },
  errors: ['too_many_streams'],
});

/** Mounted at /api/v1/events behind the API key (app.ts). Without a feed (a process that does not serve it) it answers 503. */
export function eventRoutes(deps: { feed?: EventFeed; keys: KeyAuthenticator; logger: Logger }): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/', stream, async (ctx) => {
    const query = stream.query(ctx);
    const { feed } = deps;
    if (!feed) throw unavailable('This server does not serve the event feed.');
    const workspaceId = ctx.state.workspaceId;

    // The header wins: a client that started with the query parameter reconnects with the header.
    const given = ctx.get('last-event-id') ? { name: 'Last-Event-ID', value: ctx.get('last-event-id') } : query.last_event_id ? { name: 'last_event_id', value: query.last_event_id } : null;
    let after: Position | null = null;
    if (given) {
      const cursor = decodeCursor(given.value.trim());
      after = cursor && (await feed.store.locate(workspaceId, cursor));
      if (!after) {
        throw validationFailed(
          [{ path: given.name, message: `${given.name} is not the id of an event of this workspace's feed; reconnect without it to receive what happens from now on.` }],
          `${given.name} is malformed or unknown.`,
        );
      }
    }

    const headers = {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // Proxies that buffer answers (nginx) pass this one on as it is written.
      'X-Accel-Buffering': 'no',
    };
    // HEAD has no body to stream: the headers say the stream would open.
    if (ctx.method === 'HEAD') {
      ctx.status = 200;
      ctx.set(headers);
      ctx.body = '';
      return;
    }

    // The key of this request, checked again while the stream lasts: a revoked key's stream ends.
    const presented = /^Bearer[ \t]+(\S+)/i.exec(ctx.get('authorization'))![1];
    const { em } = ctx.state.services;
    const events = new EventStream(ctx.res, {
      ...feed.streamOptions,
      logger: deps.logger,
      context: { requestId: ctx.state.requestId, workspaceId },
      stillAuthorized: async () => (await deps.keys.authenticate(em.fork(), presented)) === workspaceId,
    });
    const subscription = await feed.subscribe(workspaceId, events);
    let start: Parameters<EventStream['begin']>[1];
    try {
      // Taken once subscribed: every event committed after it reaches the stream.
      start = after ? { after } : { committedBefore: await feed.store.snapshot() };
    } catch (err) {
      subscription.unsubscribe();
      throw err;
    }

    // From here on the answer is the stream: Koa leaves the response to it, and the request's log
    // line (written now) measures how long the stream took to open, not how long it stayed open.
    ctx.status = 200;
    ctx.respond = false;
    // A response error means the client is gone; its 'close' ends the stream.
    ctx.res.on('error', () => {});
    if (!events.ended) {
      ctx.res.writeHead(200, headers);
      ctx.res.flushHeaders();
    }
    void events.begin(subscription, start, feed.store, workspaceId);
  });

  return router;
}
