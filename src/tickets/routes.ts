import Router from '@koa/router';
import { forbidden } from '../errors.ts';
import { API_ACTOR } from '../events/outbox.ts';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { validate } from '../http/validate.ts';
import { presentCreatedTicket, presentTicket } from './presenter.ts';
import { createTicketBody, listTicketsQuery, updateTicketBody } from './schema.ts';

export function ticketRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/', async (ctx) => {
    const query = validate(listTicketsQuery, ctx.query);
    if (query.workspace_id !== undefined && query.workspace_id !== ctx.state.workspaceId) {
      throw forbidden('workspace_id does not match the workspace of this API key.');
    }
    const { tickets, total } = await ctx.state.services.tickets.list(ctx.state.workspaceId, {
      page: query.page,
      perPage: query.per_page,
      status: query.status,
    });
    ctx.body = { data: tickets.map(presentTicket), pagination: { page: query.page, perPage: query.per_page, total } };
  });

  router.post('/', jsonBody(MiB), async (ctx) => {
    const input = validate(createTicketBody, ctx.request.body);
    const ticket = await ctx.state.services.tickets.create(ctx.state.workspaceId, input, API_ACTOR);
    ctx.status = 201;
    ctx.body = { data: presentCreatedTicket(ticket) };
  });

  router.get('/:id', async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { data: presentTicket(ticket) };
  });

  router.patch('/:id', jsonBody(MiB), async (ctx) => {
    const { tickets } = ctx.state.services;
    await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = validate(updateTicketBody, ctx.request.body);
    const ticket = await tickets.update(ctx.state.workspaceId, ctx.params.id, input, API_ACTOR);
    ctx.body = { data: presentTicket(ticket) };
  });

  return router;
}
