import { ApplicationFailure, condition } from '@temporalio/workflow';
import { formatDuration, renderTemplate, type ActionData } from '../../../src/graph/index.ts';
import type { ApprovalOutcome, AskedApproval } from '../../activities/types.ts';
import { cutShort, nodeFailed } from './failure.ts';
import { local } from './proxies.ts';
import type { RunState, Visit } from './state.ts';
// The node function is the whole of its node's visit (it begins the run first), as the waits of
// ./waits.ts are.
import { resumed, waiting } from './waiting.ts';

type RequestApproval = Extract<ActionData, { actionType: 'request_approval' }>;

/**
 * A request_approval node: the run asks its approvers (an approval row, pending, and the step
 * waiting with `{ approvalId }`), waits until a decision decides it or its time-out comes, and
 * goes on down `true` when approved, `false` when rejected; a time-out expires the approval and
 * takes the branch of `onTimeout` (`reject` by default). What decided is read from the row, the
 * source of truth: a decision that commits before the time-out's expiry wins the race.
 */
export async function requestApproval(run: RunState, visit: Visit, action: RequestApproval): Promise<boolean> {
  const { node, startedAt, seq } = visit;
  await run.start.begin();
  const walked = run.take();
  let asked: AskedApproval;
  try {
    asked = await local.requestApproval({
      executionId: run.executionId,
      workspaceId: run.input.workspaceId,
      workflowId: run.input.workflowId,
      ticketId: run.input.ticketId,
      nodeId: node.id,
      seq,
      question: renderTemplate(action.question, run.context),
      approvers: action.approvers,
      quorum: action.quorum ?? 'any',
      ...(action.timeoutSeconds !== undefined ? { timeoutSeconds: action.timeoutSeconds } : {}),
      ...(action.calendarId !== undefined ? { calendarId: action.calendarId } : {}),
      startedAt: startedAt.toISOString(),
      steps: walked,
    });
  } catch (err) {
    // Its transaction did not commit: the steps it was to record go with the next write.
    run.record(...walked);
    throw nodeFailed(run, visit, err);
  }
  const { approvalId } = asked;
  const due = asked.dueAt === null ? null : Date.parse(asked.dueAt);
  const what = `${node.id}: approval by ${action.quorum === 'all' ? 'all of' : 'one of'} ${action.approvers.join(', ')}${due === null ? '' : ` until ${asked.dueAt}`}${
    asked.calendarName !== undefined && action.timeoutSeconds !== undefined ? ` (${formatDuration(action.timeoutSeconds * 1000)} of open time, calendar ${JSON.stringify(asked.calendarName)})` : ''
  }`;
  const decided = () => run.approvalsDecided.has(approvalId);
  let outcome: ApprovalOutcome;
  try {
    outcome = await waiting(run, what, async (summary) => {
      for (;;) {
        const woken = due === null ? (await condition(decided), true) : await condition(decided, Math.max(1, due - Date.now()), { summary });
        const settled = await local.settleApproval({ approvalId, expire: !woken });
        // A wake-up without a decision behind it (never sent so) waits on.
        if (settled.status !== 'pending') return settled;
        run.approvalsDecided.delete(approvalId);
      }
    });
  } catch (err) {
    // Cut short by a failure elsewhere: the step keeps the approval, which the run's end cancels.
    if (cutShort(run, visit, err, { approvalId })) return false;
    throw err;
  }
  // Only a run's end cancels its approvals; one that finds its own cancelled cannot go on.
  if (outcome.status === 'cancelled') throw nodeFailed(run, visit, ApplicationFailure.nonRetryable('The approval was cancelled while the run waited for it.', 'ApprovalCancelled'));
  const decision = outcome.status as 'approved' | 'rejected' | 'expired';
  const approved = decision === 'approved' || (decision === 'expired' && action.onTimeout === 'approve');
  await resumed(run, {
    nodeId: node.id,
    seq,
    status: 'completed',
    result: { approvalId, decision, decidedBy: outcome.decidedBy },
    startedAt,
    completedAt: run.now(),
    until: due === null ? null : new Date(due),
  });
  return approved;
}
