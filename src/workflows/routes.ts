import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { validate } from '../http/validate.ts';
import { presentExecution } from '../executions/presenter.ts';
import { presentCreatedWorkflow, presentWorkflow, presentWorkflowListItem } from './presenter.ts';
import { createWorkflowBody, listExecutionsQuery, listWorkflowsQuery, triggerWorkflowBody, updateWorkflowBody } from './schema.ts';

/** How long a cancel request waits for the run to record its end before answering. */
const CANCEL_SETTLE_MS = 3_000;

export function workflowRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/', async (ctx) => {
    const query = validate(listWorkflowsQuery, ctx.query);
    const items = await ctx.state.services.workflows.list(ctx.state.workspaceId, {
      active: query.active === undefined ? undefined : query.active === 'true',
      triggerType: query.trigger_type,
    });
    ctx.body = { workflows: items.map(({ workflow, stats }) => presentWorkflowListItem(workflow, stats)) };
  });

  router.post('/', jsonBody(MiB), async (ctx) => {
    const input = validate(createWorkflowBody, ctx.request.body);
    const workflow = await ctx.state.services.workflows.create(ctx.state.workspaceId, input);
    ctx.status = 201;
    ctx.body = { workflow: presentCreatedWorkflow(workflow) };
  });

  router.get('/:id', async (ctx) => {
    const workflow = await ctx.state.services.workflows.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { workflow: presentWorkflow(workflow) };
  });

  router.patch('/:id', jsonBody(MiB), async (ctx) => {
    const { workflows } = ctx.state.services;
    await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = validate(updateWorkflowBody, ctx.request.body);
    const workflow = await workflows.update(ctx.state.workspaceId, ctx.params.id, input);
    ctx.body = { workflow: presentWorkflow(workflow) };
  });

  router.delete('/:id', async (ctx) => {
    await ctx.state.services.workflows.delete(ctx.state.workspaceId, ctx.params.id);
    ctx.status = 204;
  });

  router.post('/:id/trigger', jsonBody(MiB, { optional: true }), async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = validate(triggerWorkflowBody, ctx.request.body);
    const execution = await workflows.trigger(workflow, input);
    const [withSteps] = await executions.withSteps([execution]);
    ctx.status = 202;
    ctx.body = { execution: presentExecution(withSteps.execution, withSteps.steps) };
  });

  router.get('/:id/executions', async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const query = validate(listExecutionsQuery, ctx.query);
    const items = await executions.list(workflow.id, query);
    ctx.body = { executions: items.map(({ execution, steps }) => presentExecution(execution, steps)) };
  });

  router.get('/:id/executions/:executionId', async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const [item] = await executions.withSteps([await executions.get(workflow.id, ctx.params.executionId)]);
    ctx.body = { execution: presentExecution(item.execution, item.steps) };
  });

  router.post('/:id/executions/:executionId/cancel', async (ctx) => {
    const { workflows, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const execution = await executions.get(workflow.id, ctx.params.executionId);
    await executions.cancel(execution);
    const settled = await executions.waitUntilFinished(execution.id, CANCEL_SETTLE_MS);
    const [item] = await executions.withSteps([settled]);
    ctx.status = 202;
    ctx.body = { execution: presentExecution(item.execution, item.steps) };
  });

  return router;
}
