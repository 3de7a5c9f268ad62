// The Approvals page: the decisions people owe, pending first, and those made lately; who the
// user decides as; the comment they are writing on each; where each decision being sent
// stands. `approvalsPageReducer` is pure: it takes what the user did and what the API answered
// (console/src/pages/approvals/useApprovalsPage.ts makes the calls). Unit-tested in
// test/unit/console/approvals-page.test.ts.

import { ApiError, type Approval } from '../api-types.ts';
import { durationHint } from './time.ts';

export type ApprovalsPageState = {
  /** Pending approvals, newest first; null until read. */
  pending: Approval[] | null;
  /** Approvals no longer pending, newest first, as far as the page read them. */
  decided: Approval[];
  /** The member the user decides as ('' until chosen). */
  actingAs: string;
  /** The comment being written on each approval, by id. */
  comments: Record<string, string>;
  /** The decision being sent for an approval, by id. */
  sending: Record<string, 'approve' | 'reject'>;
  /** Why the server refused a decision (not an approver, no longer pending…), by approval id. */
  refusals: Record<string, string>;
  /** Names of the workflows that asked, by id (a deleted one is not listed). */
  workflowNames: Record<string, string>;
  /** Subjects of the tickets asked about, by id. */
  ticketSubjects: Record<string, string>;
  error: unknown;
  notice: string | null;
};

export type ApprovalsPageAction =
  | { type: 'loaded'; pending: Approval[]; recent: Approval[] }
  | { type: 'loadFailed'; error: unknown }
  | { type: 'workflowsLoaded'; names: Record<string, string> }
  | { type: 'ticketLoaded'; ticketId: string; subject: string }
  | { type: 'actAs'; userId: string }
  | { type: 'comment'; approvalId: string; text: string }
  | { type: 'decideStarted'; approvalId: string; decision: 'approve' | 'reject' }
  /** The approval as the server answered it, after the decision. */
  | { type: 'decided'; approval: Approval }
  | { type: 'decideFailed'; approvalId: string; error: unknown }
  | { type: 'dismiss'; what: 'error' | 'notice' };

export function initialApprovalsPage(actingAs = ''): ApprovalsPageState {
  return { pending: null, decided: [], actingAs, comments: {}, sending: {}, refusals: {}, workflowNames: {}, ticketSubjects: {}, error: null, notice: null };
}

const without = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

export function approvalsPageReducer(state: ApprovalsPageState, action: ApprovalsPageAction): ApprovalsPageState {
  switch (action.type) {
    case 'loaded':
      return { ...state, pending: action.pending, decided: action.recent.filter((a) => a.status !== 'pending'), error: null };
    case 'loadFailed':
      return { ...state, error: action.error };
    case 'workflowsLoaded':
      return { ...state, workflowNames: action.names };
    case 'ticketLoaded':
      return { ...state, ticketSubjects: { ...state.ticketSubjects, [action.ticketId]: action.subject } };
    case 'actAs':
      return { ...state, actingAs: action.userId, refusals: {} };
    case 'comment':
      return { ...state, comments: { ...state.comments, [action.approvalId]: action.text } };
    case 'decideStarted':
      return { ...state, sending: { ...state.sending, [action.approvalId]: action.decision }, refusals: without(state.refusals, action.approvalId), notice: null };
    case 'decided': {
      const { approval } = action;
      const stillPending = approval.status === 'pending';
      const pending = (state.pending ?? []).flatMap((a) => (a.id !== approval.id ? [a] : stillPending ? [approval] : []));
      return {
        ...state,
        pending,
        decided: stillPending ? state.decided : [approval, ...state.decided.filter((a) => a.id !== approval.id)],
        sending: without(state.sending, approval.id),
        comments: without(state.comments, approval.id),
        notice: decidedNotice(approval, state.actingAs),
      };
    }
    case 'decideFailed': {
      const refused = action.error instanceof ApiError && [403, 409].includes(action.error.status);
      return {
        ...state,
        sending: without(state.sending, action.approvalId),
        ...(refused ? { refusals: { ...state.refusals, [action.approvalId]: (action.error as ApiError).message } } : { error: action.error }),
      };
    }
    case 'dismiss':
      return { ...state, [action.what]: null };
  }
}

/** What the page says once a decision went through. */
function decidedNotice(approval: Approval, by: string): string {
  if (approval.source === 'ai_owner') {
    return approval.status === 'approved' ? `Approved as ${by}: the AI owner's reply is sent.` : `Rejected as ${by}: the draft is discarded and the ticket handed to a person.`;
  }
  if (approval.status === 'approved') return `Approved as ${by}: the run goes on down its true branch.`;
  if (approval.status === 'rejected') return `Rejected as ${by}: the run goes on down its false branch.`;
  const left = approval.approvers.filter((a) => !approval.decisions.some((d) => d.userId === a));
  return `Approved as ${by}. Every approver must approve: still waiting for ${left.join(', ')}.`;
}

/**
 * Why `userId` cannot decide this approval now, or null when they can: nobody chosen, not
 * among its approvers, decided already, or it is no longer pending.
 */
export function cannotDecide(approval: Approval, userId: string): string | null {
  if (approval.status !== 'pending') return `It is ${approval.status}.`;
  if (userId === '') return 'Choose who you decide as.';
  if (!approval.approvers.includes(userId)) return `${userId} is not among its approvers.`;
  const earlier = approval.decisions.find((d) => d.userId === userId);
  if (earlier) return `${userId} has decided already (${earlier.decision}).`;
  return null;
}

/**
 * How long is left: `2 h 5 min left`; `no time-out` when it waits until someone decides;
 * past its due time, `due 3 min ago` (the run expires it as soon as its timer fires).
 */
export function timeLeft(approval: Pick<Approval, 'dueAt'>, now: number): string {
  if (approval.dueAt === null) return 'no time-out';
  const ms = Date.parse(approval.dueAt) - now;
  const seconds = Math.floor(Math.abs(ms) / 60_000) * 60;
  const amount = seconds === 0 ? 'less than a minute' : durationHint(seconds)!;
  return ms > 0 ? `${amount} left` : `due ${amount} ago`;
}

/** The approvals the user owes a decision first: pending ones asking `userId`, then the other pending ones, each newest first. */
export function pendingFirst(pending: Approval[], userId: string): Approval[] {
  const owes = (a: Approval) => cannotDecide(a, userId) === null;
  return [...pending.filter(owes), ...pending.filter((a) => !owes(a))];
}
