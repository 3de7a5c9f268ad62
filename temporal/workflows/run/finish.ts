import { ApplicationFailure, CancellationScope, isCancellation, log } from '@temporalio/workflow';
import type { RunEnd, StepInput } from '../../activities/types.ts';
import { failureMessage } from '../failure-message.ts';
import { local } from './proxies.ts';
import { NotRunning } from './start.ts';
import type { RunState } from './state.ts';

/**
 * How a run ends, in one place: completed (unless its last actions already ended it, in
 * runActions), cancelled or failed, with the steps not yet written and, when it did not
 * complete, the nodes it never came to.
 */
export function finish(run: RunState, status: RunEnd, error: string | null): Promise<void> {
  if (status === 'completed' && run.together.ended) return Promise.resolve();
  return local.finishRun({ executionId: run.executionId, status, error, steps: status === 'completed' ? run.take() : [...run.take(), ...notReached(run)] });
}

/**
 * The walk ended with an error: a run cancelled before it began ends quietly; a cancelled run
 * is recorded cancelled, whatever else is cut short, and stays cancelled in Temporal; any other
 * error fails the execution and the run, with the same readable message.
 */
export async function finishAfter(run: RunState, err: unknown): Promise<void> {
  if (err instanceof NotRunning) return;
  if (isCancellation(err)) {
    await CancellationScope.nonCancellable(() => finish(run, 'cancelled', null));
    throw err;
  }
  const message = failureMessage(err);
  log.warn('execution failed', { executionId: run.executionId, error: message });
  await finish(run, 'failed', message);
  // Fail the run too, so the Web UI shows it failed with the same readable message.
  throw ApplicationFailure.nonRetryable(message, 'ExecutionFailed');
}

/**
 * Nodes the run never came to because it ended first (not those on branches not taken): with
 * them the steps tell what the run did, what it cut short and what it never did.
 */
function notReached(run: RunState): StepInput[] {
  const skipped = new Set(run.walker.skipped());
  const at = run.now();
  return run.input.graph.nodes
    .filter((n) => !run.visited.has(n.id) && !skipped.has(n.id))
    .map((n) => ({ nodeId: n.id, status: 'not_reached' as const, startedAt: at, completedAt: at }));
}
