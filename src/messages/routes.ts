import Router from '@koa/router';
import { conflict } from '../errors.ts';
import { API_ACTOR } from '../events/outbox.ts';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { validate } from '../http/validate.ts';
import { presentMessage } from './presenter.ts';
import { addMessageBody, listMessagesQuery } from './schema.ts';

/** Mounted under /api/v1/tickets/:id/messages. */
export function messageRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/:id/messages', async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const query = validate(listMessagesQuery, ctx.query);
    const { messages, total, truncated } = await ctx.state.services.messages.list(ticket.id, query);
    ctx.body = { data: messages.map(presentMessage), total, truncated };
  });

  router.post('/:id/messages', jsonBody(2 * MiB), async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = validate(addMessageBody, ctx.request.body);
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
