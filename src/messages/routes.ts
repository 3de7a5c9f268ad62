import Router from '@koa/router';
import { z } from 'zod';
import { conflict } from '../errors.ts';
import { API_ACTOR } from '../actor.ts';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { operation } from '../http/operation.ts';
import { presentMessage, publicMessage } from './presenter.ts';
import { addMessageBody, listMessagesQuery } from './schema.ts';

const messageWindow = z.strictObject({
  data: z.array(publicMessage).meta({ description: 'The newest `limit` messages (older than `before`), oldest first.' }),
  total: z.int().min(0).meta({ description: 'All messages of the ticket.' }),
  truncated: z.boolean().meta({ description: 'Older messages exist beyond the window.' }),
});
const addedMessage = z.strictObject({
  data: publicMessage,
  meta: z.strictObject({
    messageAddedEvent: z.enum(['emitted', 'skipped_sender_mismatch']).meta({
      description: '`emitted`: a customer reply (reopens a pending or solved ticket, starts message_received workflows); `skipped_sender_mismatch`: from anyone else.',
    }),
  }),
});

/** Mounted under /api/v1/tickets/:id/messages, behind the API key (app.ts). Each route's operation(...) is its entry in GET /openapi.json. */
export function messageRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listMessages',
    summary: 'List messages of a ticket',
    query: listMessagesQuery,
    responses: { 200: { description: 'A window of messages.', schema: messageWindow } },
  });
  router.get('/:id/messages', list, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const query = list.query(ctx);
    const { messages, total, truncated } = await ctx.state.services.messages.list(ticket.id, query);
    ctx.body = { data: messages.map(presentMessage), total, truncated };
  });

  const add = operation({
    operationId: 'addMessage',
    summary: 'Add an inbound message',
    body: addMessageBody,
    responses: { 201: { description: 'The saved message, and whether it was a customer reply.', schema: addedMessage } },
    headers: idempotencyHeaders,
    errors: ['outbound_not_allowed', IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/:id/messages', add, jsonBody(2 * MiB), idempotent, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = add.body(ctx);
    if (input.direction === 'outbound') {
      throw conflict('outbound_not_allowed', 'Only inbound messages can be written through the API; nothing was saved.');
    }
    const { message, event } = await ctx.state.services.messages.add(
      ctx.state.workspaceId,
      ticket.id,
      { ...input, direction: 'inbound' },
      API_ACTOR,
    );
    ctx.status = 201;
    ctx.body = { data: presentMessage(message), meta: { messageAddedEvent: event } };
  });

  return router;
}
