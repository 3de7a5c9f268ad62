import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Member } from '../workspaces/entity.ts';
import { Approval } from './entity.ts';

// The AI owner's approvals (source `ai_owner`): with autoSend false each draft reply asks for a
// person's yes here, so that the Approvals inbox holds every decision a person owes. The owner
// (src/ai/drafts.ts) asks, cancels and settles them in its own transactions, under the ticket's
// lock; a decision on one is applied where it is recorded (ApprovalService.decide).

/** Who decides a draft: handoffTo while a member or admin, else every current member and admin (any one of them). */
export async function draftApprovers(em: EntityManager, workspaceId: string, handoffTo: string | null): Promise<string[]> {
  const members = await em.find(Member, { workspace: workspaceId }, { fields: ['userId'], orderBy: { userId: 'asc' } });
  const ids = members.map((m) => m.userId);
  return handoffTo && ids.includes(handoffTo) ? [handoffTo] : ids;
}

/** A pending approval of the draft just written (quorum any, no time-out), in the caller's transaction. */
export function askAboutDraft(em: EntityManager, input: { workspaceId: string; ticketId: string; draftId: string; question: string; approvers: string[]; at: Date }): Approval {
  return em.create(Approval, {
    workspace: input.workspaceId,
    source: 'ai_owner',
    execution: null,
    workflow: null,
    ticketId: input.ticketId,
    aiTicket: input.ticketId,
    nodeId: null,
    draftId: input.draftId,
    question: input.question,
    approvers: input.approvers,
    quorum: 'any',
    status: 'pending',
    decisions: [],
    dueAt: null,
    decidedAt: null,
    temporalWorkflowId: null,
    signalError: null,
    createdAt: input.at,
  });
}

/** Newer drafts replaced these: their approvals, still pending, are cancelled. */
export async function cancelDraftApprovals(em: EntityManager, draftIds: string[], at = new Date()): Promise<number> {
  if (draftIds.length === 0) return 0;
  return em.nativeUpdate(Approval, { draftId: { $in: draftIds }, status: 'pending' }, { status: 'cancelled', decidedAt: at });
}

/**
 * A person sent the draft by its own route: its approval, still pending, is approved by them
 * (their decision recorded as any approver's would be), so the inbox no longer asks for it.
 */
export async function approveDraftSent(em: EntityManager, draftId: string, userId: string, at = new Date()): Promise<void> {
  const approval = await em.findOne(Approval, { draftId, status: 'pending' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!approval) return;
  approval.decisions = [...approval.decisions, { userId, decision: 'approve', comment: null, at: at.toISOString() }];
  Object.assign(approval, { status: 'approved', decidedAt: at });
}
