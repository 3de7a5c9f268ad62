import type { EntityManager } from '@mikro-orm/postgresql';
import { API_ACTOR } from '../actor.ts';
import { approveDraftSent, askAboutDraft, cancelDraftApprovals, draftApprovers } from '../approvals/drafts.ts';
import type { Approval, DecisionRecord } from '../approvals/entity.ts';
import type { DraftDecisions } from '../approvals/service.ts';
import type { AfterCommit } from '../common/after-commit.ts';
import { sql } from '../common/sql.ts';
import { conflict, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { MailDeliveryStarter } from '../mail/outbound.ts';
import { ReplyService } from '../mail/replies.ts';
import { initialMessage } from '../messages/service.ts';
import { MemberAssignees } from '../tickets/assignees.ts';
import { TicketService } from '../tickets/service.ts';
import { readTicket, type TicketRecord } from '../tickets/store.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import { AiSettings } from './entity.ts';
import { handoffChange } from './rules.ts';
import { settingsOf } from './settings.ts';

/*
 * The owner's drafts (autoSend false) and the approvals that ask a person about them
 * (docs/ai.md, "Drafts"), end to end:
 *   1. The run writes a draft turn (AiOwner.act) and, in the same transaction, a pending approval
 *      asking handoffTo, or every member and admin (askDraft); an older draft still waiting is
 *      superseded and its approval cancelled.
 *   2. A decision (POST /api/approvals/:id/decision, ApprovalService.decide) is applied here in
 *      the transaction that records it, under the ticket's lock then the approval's: approved,
 *      the draft is sent as the drafts route sends it; rejected, it is discarded and the ticket
 *      handed off. No run waits for it, so nothing has to reach Temporal: PostgreSQL alone makes
 *      it happen once (the approval is no longer pending after it) or not at all (rolled back).
 *   3. The drafts route (AiOwner.sendDraft) sends one directly and approves its approval.
 * Every path takes the ticket's lock first, as the run's act does, so they never deadlock.
 */

/** The services a draft is sent or discarded through, on the caller's transaction. */
export type DraftTx = { em: EntityManager; tickets: TicketService; replies: ReplyService };

export function draftTx(em: EntityManager, deps: { mailDelivery?: MailDeliveryStarter; afterCommit: AfterCommit; logger?: Logger }): DraftTx {
  return {
    em,
    tickets: new TicketService(em, { assignees: new MemberAssignees(em), initialMessage }),
    replies: new ReplyService(em, { starter: deps.mailDelivery, afterCommit: deps.afterCommit, logger: deps.logger }),
  };
}

/** The approval's question: who the reply goes to, on which ticket, and the reply itself. */
export function draftQuestion(ticket: Pick<TicketRecord, 'customerEmail' | 'customerName' | 'subject'>, body: string): string {
  const to = ticket.customerName ? `${ticket.customerName} <${ticket.customerEmail}>` : ticket.customerEmail;
  return `Send this reply to ${to} on "${ticket.subject}"?\n\n${body}`;
}

/** Step 1, in the run's act transaction under the ticket's lock: the draft turn is written already. */
export async function askDraft(em: EntityManager, input: { workspaceId: string; ticket: TicketRecord; draftId: string; body: string; handoffTo: string | null; at: Date }): Promise<void> {
  const superseded = await sql<{ id: string }>(
    em,
    `update "ai_turns" set "draft_state" = 'superseded' where "ticket_id" = $1 and "draft_state" = 'waiting' and "id" <> $2 returning "id"`,
    [input.ticket.id, input.draftId],
  );
  await cancelDraftApprovals(em, superseded.map((r) => r.id), input.at);
  const approvers = await draftApprovers(em, input.workspaceId, input.handoffTo);
  // A workspace without members has nobody to ask (nor anyone who could send the draft by its route).
  if (approvers.length === 0) return;
  askAboutDraft(em, { workspaceId: input.workspaceId, ticketId: input.ticket.id, draftId: input.draftId, question: draftQuestion(input.ticket, input.body), approvers, at: input.at });
}

type DraftRow = { body: string | null; draft_state: string | null; action: string };

/** The waiting draft of the ticket, under its row lock: 404 for none, 409 `draft_not_waiting` for one sent, replaced or discarded. */
async function waitingDraft(em: EntityManager, workspaceId: string, ticketId: string, draftId: string): Promise<DraftRow> {
  const [draft] = isUuid(draftId)
    ? await sql<DraftRow>(em, 'select "body", "draft_state", "action" from "ai_turns" where "id" = $1 and "ticket_id" = $2 and "workspace_id" = $3 for update', [draftId, ticketId, workspaceId])
    : [];
  if (!draft || draft.action !== 'draft') throw notFound('Draft');
  if (draft.draft_state !== 'waiting') {
    const why = { sent: 'This draft was sent already.', discarded: 'This draft was rejected and discarded.' }[draft.draft_state as string] ?? 'A newer draft replaced this one: send that one instead.';
    throw conflict('draft_not_waiting', why);
  }
  return draft;
}

/**
 * Sends the waiting draft as the owner's reply (by mail when the ticket came by mail, threaded as
 * agents' replies are) and sets the ticket pending; the caller holds the ticket's lock.
 */
export async function sendDraftIn(tx: DraftTx, input: { workspaceId: string; ticketId: string; draftId: string; authorId: string }): Promise<void> {
  const draft = await waitingDraft(tx.em, input.workspaceId, input.ticketId, input.draftId);
  const settings = settingsOf(await tx.em.findOne(AiSettings, { workspace: input.workspaceId }));
  // The same key whichever way it is sent: one message per draft.
  const message = await tx.replies.replyAsOwner(input.workspaceId, input.ticketId, { body: draft.body ?? '', senderName: settings.senderName, idempotencyKey: `ai-draft:${input.draftId}` });
  await tx.tickets.update(input.workspaceId, input.ticketId, { status: 'pending' }, API_ACTOR);
  await sql(tx.em, `update "ai_turns" set "draft_state" = 'sent', "message_id" = $2, "sent_at" = $3, "sent_by" = $4 where "id" = $1`, [input.draftId, message.id, new Date(), input.authorId]);
}

/** Step 3: the drafts route's send, which also approves the draft's approval (by the sender). */
export async function sendDraftByRoute(tx: DraftTx, input: { workspaceId: string; ticketId: string; draftId: string; authorId: string }): Promise<void> {
  await readTicket(tx.em, input.workspaceId, input.ticketId, { forUpdate: true });
  await sendDraftIn(tx, input);
  await approveDraftSent(tx.em, input.draftId, input.authorId);
}

/**
 * A person rejected the draft: it is discarded (never sent), and the ticket, while the owner
 * still holds it, goes to a person as any hand-off does (handoffTo, else unassigned and
 * escalated), with the reason on the draft's turn.
 */
export async function discardDraftIn(tx: DraftTx, input: { workspaceId: string; ticketId: string; draftId: string; decision: DecisionRecord }): Promise<void> {
  await waitingDraft(tx.em, input.workspaceId, input.ticketId, input.draftId);
  const { decision } = input;
  let reason = `draft rejected by ${decision.userId}${decision.comment ? `: ${decision.comment}` : ''}`;
  const ticket = await readTicket(tx.em, input.workspaceId, input.ticketId, { forUpdate: true });
  if (ticket.assignedTo === AI_ASSIGNEE) {
    const settings = settingsOf(await tx.em.findOne(AiSettings, { workspace: input.workspaceId }));
    let to = settings.handoffTo;
    if (to && (await sql(tx.em, 'select 1 from "members" where "workspace_id" = $1 and "user_id" = $2', [input.workspaceId, to])).length === 0) {
      reason = `${reason} (handoffTo "${to}" is no longer a member: left unassigned and escalated)`;
      to = null;
    }
    await tx.tickets.update(input.workspaceId, input.ticketId, handoffChange(to), API_ACTOR);
  }
  await sql(tx.em, `update "ai_turns" set "draft_state" = 'discarded', "reason" = $2 where "id" = $1`, [input.draftId, reason]);
}

/** Step 2: what ApprovalService.decide does with an AI owner's approval once decided. */
export function draftDecisions(deps: { mailDelivery?: MailDeliveryStarter; logger?: Logger }): DraftDecisions {
  return {
    async lockTicket(em: EntityManager, approval: Approval) {
      if (approval.ticketId) await readTicket(em, approval.workspace, approval.ticketId, { forUpdate: true });
    },
    async apply(em: EntityManager, approval: Approval, decision: DecisionRecord, afterCommit: AfterCommit) {
      if (!approval.ticketId || !approval.draftId) return;
      const tx = draftTx(em, { ...deps, afterCommit });
      const input = { workspaceId: approval.workspace, ticketId: approval.ticketId, draftId: approval.draftId };
      if (approval.status === 'approved') await sendDraftIn(tx, { ...input, authorId: decision.userId });
      else if (approval.status === 'rejected') await discardDraftIn(tx, { ...input, decision });
      deps.logger?.info('AI draft decided', { ticketId: approval.ticketId, draftId: approval.draftId, approvalId: approval.id, status: approval.status });
    },
  };
}
