import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { backtestPolicy } from './backtest.ts';
import { backtestAnswer, policyEnvelope, policyList, presentPolicy, presentQueue, presentTicketSla, queueEnvelope, ticketSlaEnvelope } from './presenter.ts';
import { queue, ticketSla } from './reads.ts';
import { backtestPolicyBody, createPolicyBody, queueQuery, updatePolicyBody } from './schema.ts';

/** SLA policies of the key's workspace; mounted under /api/sla-policies, behind the API key (app.ts). */
export function slaPolicyRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listSlaPolicies',
    summary: 'List SLA policies',
    tag: 'Service levels',
    responses: { 200: { description: 'The policies, in the order they are matched.', schema: policyList } },
  });
  router.get('/', list, async (ctx) => {
    const policies = await ctx.state.services.slaPolicies.list(ctx.state.workspaceId);
    ctx.body = { policies: policies.map(presentPolicy) };
  });

  const create = operation({
    operationId: 'createSlaPolicy',
    summary: 'Create an SLA policy',
    tag: 'Service levels',
    description:
      'Targets per metric (first_reply, next_reply, resolution) and priority, counted in calendar time or in the open time of a calendar. A ticket is governed by the first active policy, in order, whose match holds; the tickets not yet solved or closed are given their policy again in the background.',
    body: createPolicyBody,
    listPaths: 'indexed',
    responses: { 201: { description: 'The new policy.', schema: policyEnvelope } },
  });
  router.post('/', create, jsonBody(MiB), async (ctx) => {
    const input = create.body(ctx);
    const policy = await ctx.state.services.slaPolicies.create(ctx.state.workspaceId, input);
    ctx.status = 201;
    ctx.body = { policy: presentPolicy(policy) };
  });

  const backtest = operation({
    operationId: 'backtestSlaPolicy',
    summary: 'Try an SLA policy on recorded tickets',
    tag: 'Service levels',
    description:
      'The attainment a policy (saved or not) would have had on the tickets created in the last `days` days: each replayed through the clock rules from what Deskflow recorded (creation, replies, status and priority changes). Nothing is written. Status and priority changes are kept OUTBOX_RETENTION_DAYS (default 30): see docs/sla.md.',
    body: backtestPolicyBody,
    listPaths: 'indexed',
    responses: { 200: { description: 'What the policy would have said.', schema: backtestAnswer } },
  });
  router.post('/backtest', backtest, jsonBody(MiB), async (ctx) => {
    const input = backtest.body(ctx);
    ctx.body = await backtestPolicy(ctx.state.services.em, ctx.state.workspaceId, input);
  });

  const get = operation({
    operationId: 'getSlaPolicy',
    summary: 'Get an SLA policy',
    tag: 'Service levels',
    responses: { 200: { description: 'The policy.', schema: policyEnvelope } },
  });
  router.get('/:id', get, async (ctx) => {
    const policy = await ctx.state.services.slaPolicies.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { policy: presentPolicy(policy) };
  });

  const update = operation({
    operationId: 'updateSlaPolicy',
    summary: 'Update an SLA policy',
    tag: 'Service levels',
    description: 'Replaces the fields given (`targets`, `pauseOn` and `match` as a whole). Tickets not yet solved or closed follow the change in the background, measured from the same starting instants.',
    body: updatePolicyBody,
    listPaths: 'indexed',
    responses: { 200: { description: 'The policy after the update.', schema: policyEnvelope } },
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { slaPolicies } = ctx.state.services;
    await slaPolicies.get(ctx.state.workspaceId, ctx.params.id);
    const input = update.body(ctx);
    const policy = await slaPolicies.update(ctx.state.workspaceId, ctx.params.id, input);
    ctx.body = { policy: presentPolicy(policy) };
  });

  const remove = operation({
    operationId: 'deleteSlaPolicy',
    summary: 'Delete an SLA policy',
    tag: 'Service levels',
    description: 'The tickets it governed that are not yet solved or closed are given to the next policy that matches (or none), in the background.',
    responses: { 204: { description: 'Deleted.' } },
  });
  router.delete('/:id', remove, async (ctx) => {
    await ctx.state.services.slaPolicies.delete(ctx.state.workspaceId, ctx.params.id);
    ctx.status = 204;
  });

  return router;
}

/** A ticket's clocks; mounted under /api/v1/tickets beside the ticket's own routes. */
export function ticketSlaRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const get = operation({
    operationId: 'getTicketSla',
    summary: 'Get a ticket\'s service-level clocks',
    tag: 'Service levels',
    description: 'The policy that governs the ticket and where each of its targets stands at this instant; `{ "sla": null }` when no policy governs it. Clocks follow the ticket\'s changes within a second or so (the relay folds its events).',
    responses: { 200: { description: 'The clocks, or null.', schema: ticketSlaEnvelope } },
  });
  router.get('/:id/sla', get, async (ctx) => {
    ctx.body = presentTicketSla(await ticketSla(ctx.state.services.em, ctx.state.workspaceId, ctx.params.id, new Date()));
  });
  return router;
}

/** The queue of what breaks next; mounted under /api/sla. */
export function slaQueueRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const list = operation({
    operationId: 'listSlaQueue',
    summary: 'What breaks next',
    tag: 'Service levels',
    description: 'The running targets of the workspace\'s tickets, nearest dueAt first: breached ones not yet met, those in warning, and those counting. Paused and met targets are not listed.',
    query: queueQuery,
    responses: { 200: { description: 'The targets, nearest due first.', schema: queueEnvelope } },
  });
  router.get('/tickets', list, async (ctx) => {
    const query = list.query(ctx);
    ctx.body = presentQueue(await queue(ctx.state.services.em, ctx.state.workspaceId, query, new Date()));
  });
  return router;
}
