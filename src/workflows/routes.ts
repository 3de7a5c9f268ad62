import Router from '@koa/router';
import { z } from 'zod';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { validate } from '../http/validate.ts';
import { operation } from '../http/operation.ts';
import { createdWorkflow, presentCreatedWorkflow, presentWorkflow, presentWorkflowListItem, publicWorkflow, workflowListItem } from './presenter.ts';
import { createWorkflowBody, listWorkflowsQuery, updateWorkflowBody } from './schema.ts';

const workflowEnvelope = z.strictObject({ workflow: publicWorkflow });

/** Workflow definitions; mounted under /api/workflows. Each route's operation(...) is its entry in GET /openapi.json. */
export function workflowRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listWorkflows',
    summary: 'List workflows',
    query: listWorkflowsQuery,
    responses: { 200: { description: 'The workflows, newest first.', schema: z.strictObject({ workflows: z.array(workflowListItem) }) } },
  });
  router.get('/', list, async (ctx) => {
    const query = validate(listWorkflowsQuery, ctx.query);
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
    const input = validate(createWorkflowBody, ctx.request.body);
    const workflow = await ctx.state.services.workflows.create(ctx.state.workspaceId, input);
    ctx.status = 201;
    ctx.body = { workflow: presentCreatedWorkflow(workflow) };
  });

  const get = operation({
    operationId: 'getWorkflow',
    summary: 'Get a workflow with its full configuration',
    responses: { 200: { description: 'The workflow, with its graph (and webhook address and secret on a webhook workflow).', schema: workflowEnvelope } },
  });
  router.get('/:id', get, async (ctx) => {
    const workflow = await ctx.state.services.workflows.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { workflow: presentWorkflow(workflow) };
  });

  const update = operation({
    operationId: 'updateWorkflow',
    summary: 'Update a workflow',
    description: '`version` goes up when the graph or the trigger type really changes. A refused PATCH changes nothing.',
    body: updateWorkflowBody,
    responses: { 200: { description: 'The full configuration after the update.', schema: workflowEnvelope } },
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { workflows } = ctx.state.services;
    await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = validate(updateWorkflowBody, ctx.request.body);
    const workflow = await workflows.update(ctx.state.workspaceId, ctx.params.id, input);
    ctx.body = { workflow: presentWorkflow(workflow) };
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
