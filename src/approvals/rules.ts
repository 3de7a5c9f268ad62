import type { ApprovalQuorum } from '../graph/index.ts';
import type { ApprovalStatus, DecisionRecord } from './entity.ts';

/**
 * What the decisions given so far make of an approval (docs/automations.md, "request_approval"):
 * one rejection rejects; with quorum `any` the first approval approves, with `all` every
 * approver must have approved. Until then it is pending.
 */
export function outcomeOf(quorum: ApprovalQuorum, approvers: readonly string[], decisions: readonly DecisionRecord[]): Extract<ApprovalStatus, 'pending' | 'approved' | 'rejected'> {
  if (decisions.some((d) => d.decision === 'reject')) return 'rejected';
  const approvedBy = new Set(decisions.filter((d) => d.decision === 'approve').map((d) => d.userId));
  if (quorum === 'any' ? approvedBy.size > 0 : approvers.every((a) => approvedBy.has(a))) return 'approved';
  return 'pending';
}

/** Whose decisions decided it: the approvers who approved an approved one, the one who rejected a rejected one; nobody's for the rest. */
export function decidedBy(status: ApprovalStatus, decisions: readonly DecisionRecord[]): string[] {
  const wanted = status === 'approved' ? 'approve' : status === 'rejected' ? 'reject' : null;
  return wanted ? decisions.filter((d) => d.decision === wanted).map((d) => d.userId) : [];
}
