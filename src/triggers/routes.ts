import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { operation } from '../http/operation.ts';
import { executionEnvelope } from '../executions/presenter.ts';
import { triggerWorkflowBody } from './schema.ts';

/** POST /api/workflows/:id/trigger, behind the API key (app.ts): a manual run, also of an inactive workflow (a test run). */
export function triggerRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const trigger = operation({
    operationId: 'triggerWorkflow',
    summary: 'Run a workflow by hand',
    description: 'Also runs an inactive workflow (a test run). The body is optional.',
    tag: 'Executions',
    body: triggerWorkflowBody,
    headers: idempotencyHeaders,
    responses: { 202: { description: 'The execution, started.', schema: executionEnvelope } },
    errors: [IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/:id/trigger', trigger, jsonBody(MiB, { optional: true }), idempotent, async (ctx) => {
    const { workflows, triggers, executions } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = trigger.body(ctx);
    const execution = await triggers.run(workflow, 'manual', { ticketId: input.ticketId, data: input.data ?? {} });
    ctx.status = 202;
    ctx.body = { execution: await executions.view(execution) };
  });

  return router;
}
