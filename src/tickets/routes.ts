import Router from '@koa/router';
import { z } from 'zod';
import { forbidden } from '../errors.ts';
import { API_ACTOR } from '../actor.ts';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { operation } from '../http/operation.ts';
import { createdTicket, presentCreatedTicket, presentTicket, publicTicket } from './presenter.ts';
import { addTagBody, createTicketBody, listTicketsQuery, tagParam, updateTicketBody } from './schema.ts';
import { validate } from '../http/validate.ts';

const ticketEnvelope = z.strictObject({ data: publicTicket });
const ticketPage = z.strictObject({
  data: z.array(publicTicket).meta({ description: 'In the order of `sort`: newest first by default, best match first for a search (`q`).' }),
  pagination: z.strictObject({ page: z.int().min(1), perPage: z.int().min(1).max(100), total: z.int().min(0).meta({ description: 'Tickets matching the filter.' }) }),
});

/** Mounted under /api/v1/tickets, behind the API key (app.ts). Each route's operation(...) is its entry in GET /openapi.json. */
export function ticketRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listTickets',
    summary: 'List and search tickets',
    description:
      'Filters hold together (AND); a repeated parameter matches any of its values (OR). An unknown parameter is a 400. `total` counts every ticket that passes, exactly.',
    query: listTicketsQuery,
    responses: { 200: { description: 'A page of tickets, with the total.', schema: ticketPage } },
    errors: ['forbidden'],
  });
  router.get('/', list, async (ctx) => {
    const query = list.query(ctx);
    if (query.workspace_id !== undefined && query.workspace_id !== ctx.state.workspaceId) {
      throw forbidden('workspace_id does not match the workspace of this API key.');
    }
    const { tickets, total } = await ctx.state.services.tickets.list(ctx.state.workspaceId, {
      page: query.page,
      perPage: query.per_page,
      filter: {
        status: query.status,
        priorities: query.priority,
        sources: query.source,
        customerEmails: query.customer_email,
        assignedTo: query.assigned_to,
        tags: query.tag,
        q: query.q,
      },
      sort: query.sort,
    });
    ctx.body = { data: tickets.map(presentTicket), pagination: { page: query.page, perPage: query.per_page, total } };
  });

  const create = operation({
    operationId: 'createTicket',
    summary: 'Create a ticket',
    description: 'The body becomes the ticket’s first message (inbound, from the customer).',
    body: createTicketBody,
    headers: idempotencyHeaders,
    responses: { 201: { description: 'The new ticket (eight fields).', schema: z.strictObject({ data: createdTicket }) } },
    errors: [IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/', create, jsonBody(MiB), idempotent, async (ctx) => {
    const input = create.body(ctx);
    const { ticket } = await ctx.state.services.tickets.create(ctx.state.workspaceId, input, API_ACTOR);
    ctx.status = 201;
    ctx.body = { data: presentCreatedTicket(ticket) };
  });

  const get = operation({ operationId: 'getTicket', summary: 'Get a ticket', responses: { 200: { description: 'The ticket.', schema: ticketEnvelope } } });
  router.get('/:id', get, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { data: presentTicket(ticket) };
  });

  const update = operation({
    operationId: 'updateTicket',
    summary: 'Update status, priority or assignee',
    body: updateTicketBody,
    responses: { 200: { description: 'The ticket after the update.', schema: ticketEnvelope } },
    errors: ['forbidden'],
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { tickets } = ctx.state.services;
    await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = update.body(ctx);
    const ticket = await tickets.update(ctx.state.workspaceId, ctx.params.id, input, API_ACTOR);
    ctx.body = { data: presentTicket(ticket) };
  });

  const addTag = operation({
    operationId: 'addTicketTag',
    summary: 'Tag a ticket',
    description:
      'Adds the tag as the `add_tag` action does: trimmed, 1-100 characters; `ticket_updated` and `tag_added` events start the workflows of those triggers. A tag the ticket has already changes nothing.',
    body: addTagBody,
    responses: { 200: { description: 'The ticket, with the tag.', schema: ticketEnvelope } },
  });
  router.post('/:id/tags', addTag, jsonBody(MiB), async (ctx) => {
    const { tickets } = ctx.state.services;
    await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const { tag } = addTag.body(ctx);
    const ticket = await tickets.update(ctx.state.workspaceId, ctx.params.id, { addTags: [tag] }, API_ACTOR);
    ctx.body = { data: presentTicket(ticket) };
  });

  const removeTag = operation({
    operationId: 'removeTicketTag',
    summary: 'Remove a tag from a ticket',
    description: 'As the `remove_tag` action: a `ticket_updated` event with `changes.tags`. A tag the ticket does not have changes nothing.',
    params: tagParam,
    responses: { 200: { description: 'The ticket, without the tag.', schema: ticketEnvelope } },
    errors: ['validation_failed'],
  });
  router.delete('/:id/tags/:tag', removeTag, async (ctx) => {
    const { tickets } = ctx.state.services;
    await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const { tag } = validate(tagParam, { tag: ctx.params.tag });
    const ticket = await tickets.update(ctx.state.workspaceId, ctx.params.id, { removeTags: [tag] }, API_ACTOR);
    ctx.body = { data: presentTicket(ticket) };
  });

  return router;
}
