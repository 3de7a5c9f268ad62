import Router from '@koa/router';
import { z } from 'zod';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { presentMessage, publicMessage } from '../messages/presenter.ts';
import { agentReplyBody } from './reply-schema.ts';

/** Mounted under /api/v1/tickets, behind the API key (app.ts). */
export function replyRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const reply = operation({
    operationId: 'replyToTicket',
    summary: 'Reply to the customer',
    description:
      'An agent’s reply: saved as an outbound message of the ticket and, when the workspace has a mailbox, sent to the ticket’s customer by mail, threaded under their mail (see docs/mail.md, "Connect a mailbox"). Without a mailbox it is saved only.',
    body: agentReplyBody,
    headers: idempotencyHeaders,
    responses: { 201: { description: 'The outbound message.', schema: z.strictObject({ data: publicMessage }) } },
    errors: ['forbidden', IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/:id/replies', reply, jsonBody(2 * MiB), idempotent, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = reply.body(ctx);
    const message = await ctx.state.services.replies.reply(ctx.state.workspaceId, ticket.id, input);
    ctx.status = 201;
    ctx.body = { data: presentMessage(message) };
  });
  return router;
}
