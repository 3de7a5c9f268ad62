import Router from '@koa/router';
import { z } from 'zod';
import type { AppState } from '../http/state.ts';
import { operation } from '../http/operation.ts';
import { executionEnvelope, publicExecution } from './presenter.ts';
import { listExecutionsQuery, listTicketExecutionsQuery } from './schema.ts';

/** How long a cancel request waits for the run to record its end before answering. */
const CANCEL_SETTLE_MS = 3_000;

/** A workflow's executions; mounted under /api/workflows, behind the API key (app.ts). Each route's operation(...) is its entry in GET /openapi.json. */
export function executionRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listExecutions',
    summary: 'List executions of a workflow',
    query: listExecutionsQuery,
    responses: { 200: { description: 'Executions with their steps, newest first.', schema: z.strictObject({ executions: z.array(publicExecution) }) } },
  });
  router.get('/:id/executions', list, async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const query = list.query(ctx);
    ctx.body = { executions: await executions.list(workflow.id, query) };
  });

  const get = operation({ operationId: 'getExecution', summary: 'Get one execution', responses: { 200: { description: 'The execution.', schema: executionEnvelope } } });
  router.get('/:id/executions/:executionId', get, async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { execution: await executions.view(await executions.get(workflow.id, ctx.params.executionId)) };
  });

  const cancel = operation({
    operationId: 'cancelExecution',
    summary: 'Cancel an execution',
    description: 'Answers once the run has recorded its end, or after a few seconds with the execution as it then is.',
    responses: { 202: { description: 'Cancellation accepted.', schema: executionEnvelope } },
    errors: ['execution_finished'],
  });
  router.post('/:id/executions/:executionId/cancel', cancel, async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const execution = await executions.get(workflow.id, ctx.params.executionId);
    await executions.cancel(execution);
    ctx.status = 202;
    ctx.body = { execution: await executions.view(await executions.waitUntilFinished(execution.id, CANCEL_SETTLE_MS)) };
  });

  return router;
}

/** Every automation run on a ticket; mounted under /api/v1/tickets, behind the API key (app.ts). */
export function ticketExecutionRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listTicketExecutions',
    summary: 'List the executions of a ticket',
    description: 'The runs of every workflow on this ticket, newest first, in the shape and pages of a workflow\'s executions (executions of deleted workflows are left out).',
    tag: 'Executions',
    query: listTicketExecutionsQuery,
    responses: { 200: { description: 'Executions with their steps, newest first.', schema: z.strictObject({ executions: z.array(publicExecution) }) } },
  });
  router.get('/:id/executions', list, async (ctx) => {
    const { tickets, executions } = ctx.state.services;
    const ticket = await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const query = list.query(ctx);
    ctx.body = { executions: await executions.listForTicket(ctx.state.workspaceId, ticket.id, query) };
  });

  return router;
}
