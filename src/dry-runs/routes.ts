import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { workflowGraphOf } from '../workflows/service.ts';
import { checkApprovers } from '../approvals/approvers.ts';
import { backtestEnvelope, dryRunEnvelope } from './presenter.ts';
import { backtestBody, dryRunBody, dryRunGraphBody } from './schema.ts';

const NOTHING_HAPPENS = 'Nothing is written or sent: no execution, ticket change, message, event, outbound request or Temporal run.';

/** Trying a workflow before activating it; mounted under /api/workflows, behind the API key (app.ts). */
export function dryRunRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const dryRunGraph = operation({
    operationId: 'dryRunGraph',
    summary: 'Dry-run an unsaved graph',
    description: `Validates \`triggerType\` and \`workflowJson\` as creating a workflow does, then walks the graph as a run would on the given ticket and event. ${NOTHING_HAPPENS}`,
    body: dryRunGraphBody,
    responses: { 200: { description: 'The path the run would take, the ticket changes and what it would send.', schema: dryRunEnvelope } },
  });
  router.post('/dry-run', dryRunGraph, jsonBody(MiB), async (ctx) => {
    const { triggerType, workflowJson, ...input } = dryRunGraph.body(ctx);
    const target = { workspace: ctx.state.workspaceId, ...workflowGraphOf({ triggerType, workflowJson }) };
    // As when creating a workflow: the calendars and approvers it names are the workspace's.
    await ctx.state.services.calendars.checkReferences(ctx.state.services.em, target.workspace, target.graph);
    await checkApprovers(ctx.state.services.em, target.workspace, target.graph);
    ctx.body = { dryRun: await ctx.state.services.dryRuns.dryRun(target, input) };
  });

  const dryRun = operation({
    operationId: 'dryRunWorkflow',
    summary: 'Dry-run a workflow',
    description: `Walks the workflow's current graph (active or not) as a run would on the given ticket and event. ${NOTHING_HAPPENS}`,
    body: dryRunBody,
    responses: { 200: { description: 'The path the run would take, the ticket changes and what it would send.', schema: dryRunEnvelope } },
  });
  router.post('/:id/dry-run', dryRun, jsonBody(MiB, { optional: true }), async (ctx) => {
    const { workflows, dryRuns } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = dryRun.body(ctx);
    ctx.body = { dryRun: await dryRuns.dryRun(workflow, input) };
  });

  const backtest = operation({
    operationId: 'backtestWorkflow',
    summary: 'Backtest a workflow on recorded events',
    description:
      "Replays the workflow's current graph over the workspace's recorded events of its trigger type in [since, until), oldest first (a scheduled workflow with a ticket filter: over the tickets the filter selects now). " +
      NOTHING_HAPPENS,
    body: backtestBody,
    responses: { 200: { description: 'What the workflow would have done.', schema: backtestEnvelope } },
  });
  router.post('/:id/backtest', backtest, jsonBody(MiB, { optional: true }), async (ctx) => {
    const { workflows, dryRuns } = ctx.state.services;
    const workflow = await workflows.get(ctx.state.workspaceId, ctx.params.id);
    const input = backtest.body(ctx);
    ctx.body = { backtest: await dryRuns.backtest(workflow, input) };
  });

  return router;
}
