import Router from '@koa/router';
import { z } from 'zod';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { userId } from '../workspaces/user-id.ts';
import { dryRunEnvelope, turnEnvelope, turnList } from './presenter.ts';

const sendDraftBody = z.strictObject({
  authorId: userId('authorId').meta({ description: 'The person who sends it: a current member or admin of the workspace (else 403).' }),
});

/** What the AI owner did and would do on a ticket; mounted under /api/v1/tickets, behind the API key (app.ts). */
export function aiTicketRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const turns = operation({
    operationId: 'listAiTurns',
    summary: 'What the AI owner did on a ticket',
    description: 'One turn per customer message the owner handled: a reply (its message), a draft waiting for a person, or a hand-off with its reason; oldest first.',
    tag: 'AI',
    responses: { 200: { description: 'The turns, oldest first.', schema: turnList } },
  });
  router.get('/:id/ai', turns, async (ctx) => {
    ctx.body = { turns: await ctx.state.services.owner.turns(ctx.state.workspaceId, ctx.params.id) };
  });

  const dryRun = operation({
    operationId: 'dryRunAiOwner',
    summary: 'What the AI owner would do now',
    description: 'Applies the owner’s rules, searches the knowledge and, with a model, asks it, but sends and changes nothing.',
    tag: 'AI',
    responses: { 200: { description: 'What it would do.', schema: dryRunEnvelope } },
  });
  router.post('/:id/ai/dry-run', dryRun, async (ctx) => {
    ctx.body = { dryRun: await ctx.state.services.owner.dryRun(ctx.state.workspaceId, ctx.params.id) };
  });

  const send = operation({
    operationId: 'sendAiDraft',
    summary: 'Send the AI owner’s draft',
    description: 'With `autoSend: false` the owner’s replies wait as drafts: a person sends one here, as the owner’s reply (by mail when the ticket came by mail), and the ticket becomes pending.',
    tag: 'AI',
    body: sendDraftBody,
    responses: { 200: { description: 'The draft’s turn, sent.', schema: turnEnvelope } },
    errors: ['forbidden', 'draft_not_waiting'],
  });
  router.post('/:id/ai/drafts/:draftId/send', send, jsonBody(MiB), async (ctx) => {
    const { owner, tickets } = ctx.state.services;
    // An unknown ticket is a 404 before the body is looked at, as for notes.
    await tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = send.body(ctx);
    ctx.body = { turn: await owner.sendDraft(ctx.state.workspaceId, ctx.params.id, ctx.params.draftId, input.authorId) };
  });

  return router;
}
