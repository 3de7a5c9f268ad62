import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { approvalEnvelope, approvalList, presentApproval } from './presenter.ts';
import { decisionBody, listApprovalsQuery } from './schema.ts';

/** Approvals runs and the AI owner ask of the key's workspace; mounted under /api/approvals, behind the API key (app.ts). */
export function approvalRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listApprovals',
    summary: 'List approvals',
    description: 'The questions runs asked people (request_approval) and the AI owner\'s draft replies waiting for a yes (`source: ai_owner`), newest first; `status=pending` for those still waiting.',
    query: listApprovalsQuery,
    responses: { 200: { description: 'The approvals, newest first.', schema: approvalList } },
  });
  router.get('/', list, async (ctx) => {
    const query = list.query(ctx);
    const approvals = await ctx.state.services.approvals.list(ctx.state.workspaceId, query);
    ctx.body = { approvals: approvals.map(presentApproval) };
  });

  const get = operation({
    operationId: 'getApproval',
    summary: 'Get an approval',
    responses: { 200: { description: 'The approval, with every decision given so far.', schema: approvalEnvelope } },
  });
  router.get('/:id', get, async (ctx) => {
    const approval = await ctx.state.services.approvals.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { approval: presentApproval(approval) };
  });

  const decide = operation({
    operationId: 'decideApproval',
    summary: 'Approve or reject',
    description:
      'One approver\'s decision, recorded at once. With quorum `any` the first decision decides; with `all` every approver must approve; one rejection rejects. ' +
      'The decision that decides it wakes the waiting run, which goes on down its `true` (approved) or `false` (rejected) edge within a second; should the workflow engine be away, it goes on once the engine is back. ' +
      'An AI owner\'s approval (`source: ai_owner`) is applied with the decision: approved, its draft is sent and the ticket set pending; rejected, the draft is discarded and the ticket handed off. ' +
      '403 when `userId` is not among the approvers or no longer a member or admin of the workspace; 409 `approval_not_pending` (naming its status) or `already_decided`.',
    body: decisionBody,
    headers: idempotencyHeaders,
    responses: { 200: { description: 'The approval as it stands after the decision.', schema: approvalEnvelope } },
    errors: ['forbidden', 'approval_not_pending', 'already_decided', IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/:id/decision', decide, jsonBody(MiB), idempotent, async (ctx) => {
    const { approvals } = ctx.state.services;
    const found = await approvals.get(ctx.state.workspaceId, ctx.params.id);
    const input = decide.body(ctx);
    const approval = await approvals.decide(ctx.state.workspaceId, found.id, input);
    ctx.body = { approval: presentApproval(approval) };
  });

  return router;
}
