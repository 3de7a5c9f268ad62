import { ApplicationFailure, isCancellation, patched } from '@temporalio/workflow';
import { BRANCHES_SETTLE } from '../patches.ts';
import { failureMessage } from '../failure-message.ts';
import { NotRunning } from './start.ts';
import type { RunState, Visit } from './state.ts';

/**
 * A node that cannot go on: its step fails with the reason, the other branches settle (their
 * waits cut short, since BRANCHES_SETTLE), and the run fails naming it. Answers what to throw.
 */
export function nodeFailed(run: RunState, { node, startedAt, seq }: Visit, err: unknown): unknown {
  if (isCancellation(err) || err instanceof NotRunning) return err;
  const reason = failureMessage(err);
  run.record({ nodeId: node.id, seq, status: 'failed', startedAt, completedAt: run.now(), error: reason });
  if (run.failedNode === null && patched(BRANCHES_SETTLE)) {
    run.failedNode = node.id;
    for (const scope of run.waits.values()) scope?.cancel();
  }
  const what = node.type === 'action' ? node.data.actionType : node.type;
  return ApplicationFailure.nonRetryable(`Node "${node.id}" (${what}) failed: ${reason}`, 'ActionFailed');
}

/**
 * A wait cut short because another branch failed (not because the run was cancelled): the
 * branch ends there, and its step says why (keeping the `result` it had while it waited, such
 * as the approval it waited for). False for any other error.
 */
export function cutShort(run: RunState, { node, startedAt, seq }: Visit, err: unknown, result?: unknown): boolean {
  if (run.failedNode === null || !isCancellation(err) || run.root.consideredCancelled) return false;
  run.record({ nodeId: node.id, seq, status: 'cancelled', ...(result !== undefined ? { result } : {}), startedAt, completedAt: run.now(), error: `Not waited out: node "${run.failedNode}" failed.` });
  return true;
}
