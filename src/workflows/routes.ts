import Router from '@koa/router';
import { z } from 'zod';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { operation } from '../http/operation.ts';
import { createdWorkflow, presentCreatedWorkflow, presentWorkflow, presentWorkflowListItem, publicWorkflow, workflowListItem } from './presenter.ts';
import { parseIfMatch, workflowEtag } from './etag.ts';
import { createWorkflowBody, listWorkflowsQuery, updateWorkflowBody } from './schema.ts';

const workflowEnvelope = z.strictObject({ workflow: publicWorkflow });
const etagHeader = z.object({
  ETag: z.string().meta({ description: 'The workflow\'s current entity tag: it changes whenever the workflow does. Send it back in If-Match when updating.' }),
});
const ifMatchHeader = z.object({
  'If-Match': z
    .string()
    .optional()
    .meta({ description: 'The ETag of the workflow as you read it (or `*`): the update applies only if nobody changed the workflow since, else 412 `precondition_failed` and nothing changes. Without it, the update applies whatever the state.' }),
});

/** Workflow definitions; mounted under /api/workflows, behind the API key (app.ts). Each route's operation(...) is its entry in GET /openapi.json. */
export function workflowRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listWorkflows',
    summary: 'List workflows',
    query: listWorkflowsQuery,
    responses: { 200: { description: 'The workflows, newest first.', schema: z.strictObject({ workflows: z.array(workflowListItem) }) } },
  });
  router.get('/', list, async (ctx) => {
    const query = list.query(ctx);
    const workflows = await ctx.state.services.workflows.list(ctx.state.workspaceId, {
      active: query.active === undefined ? undefined : query.active === 'true',
      triggerType: query.trigger_type,
    });
    ctx.body = { workflows: workflows.map(presentWorkflowListItem) };
  });

  const create = operation({
    operationId: 'createWorkflow',
    summary: 'Create a workflow',
    description: 'New workflows are inactive, at version 1. Without `workflowJson` the graph is just the trigger node.',
    body: createWorkflowBody,
    responses: { 201: { description: 'The new workflow.', schema: z.strictObject({ workflow: createdWorkflow }) } },
  });
  router.post('/', create, jsonBody(MiB), async (ctx) => {
    const input = create.body(ctx);
    const workflow = await ctx.state.services.workflows.create(ctx.state.workspaceId, input);
    ctx.status = 201;
    ctx.body = { workflow: presentCreatedWorkflow(workflow) };
  });

  const get = operation({
    operationId: 'getWorkflow',
    summary: 'Get a workflow with its full configuration',
    responses: { 200: { description: 'The workflow, with its graph (and webhook address and secret on a webhook workflow).', schema: workflowEnvelope, headers: etagHeader } },
  });
  router.get('/:id', get, async (ctx) => {
    const workflow = presentWorkflow(await ctx.state.services.workflows.get(ctx.state.workspaceId, ctx.params.id));
    ctx.set('ETag', workflowEtag(workflow));
    ctx.body = { workflow };
  });

  const update = operation({
    operationId: 'updateWorkflow',
    summary: 'Update a workflow',
    description:
      '`version` goes up when the graph or the trigger type really changes. A refused PATCH changes nothing. ' +
      'With `If-Match`, it applies only to the workflow as that ETag saw it (412 otherwise).',
    body: updateWorkflowBody,
    headers: ifMatchHeader,
    responses: { 200: { description: 'The full configuration after the update.', schema: workflowEnvelope, headers: etagHeader } },
    errors: ['precondition_failed'],
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { workflows } = ctx.state.services;
    await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = update.body(ctx);
    const ifMatch = parseIfMatch(ctx.headers['if-match']);
    const workflow = presentWorkflow(await workflows.update(ctx.state.workspaceId, ctx.params.id, input, { ifMatch }));
    ctx.set('ETag', workflowEtag(workflow));
    ctx.body = { workflow };
  });

  const remove = operation({
    operationId: 'deleteWorkflow',
    summary: 'Delete a workflow (cannot be undone)',
    description: 'Its running executions are cancelled.',
    responses: { 204: { description: 'Deleted.' } },
  });
  router.delete('/:id', remove, async (ctx) => {
    await ctx.state.services.workflows.delete(ctx.state.workspaceId, ctx.params.id);
    ctx.status = 204;
  });

  return router;
}
