import { setHandler } from '@temporalio/workflow';
import { parseIsoInstant, walk } from '../../src/graph/index.ts';
import type { RunGraphInput } from '../activities/types.ts';
import { finish, finishAfter } from './run/finish.ts';
import { runNode } from './run/nodes.ts';
import { RunState } from './run/state.ts';
import { approvalDecided, customerReplied } from './signals.ts';

/**
 * Runs one execution of a workflow graph (docs/automations.md): starts at the trigger, follows
 * edges, runs fan-out branches in parallel and each join once, and ends the execution
 * completed, failed (naming the node) or cancelled. Steps of the trigger and of conditions
 * need no I/O: they are recorded with the next write that happens anyway.
 *
 * What the run knows is its RunState (./run/state.ts); it begins once (./run/start.ts), visits
 * nodes (./run/nodes.ts: waits in ./run/waits.ts, actions in ./run/actions.ts) and ends once
 * (./run/finish.ts). Changes to runs in flight go under the patches of ./patches.ts.
 */
export async function runAutomation(input: RunGraphInput): Promise<void> {
  const run = new RunState(input);
  setHandler(customerReplied, ({ messageId, at }) => {
    run.replies.set(messageId, at === undefined ? undefined : parseIsoInstant(at));
  });
  // Registering a handler writes nothing to the history: runs begun before it replay alike.
  setHandler(approvalDecided, ({ approvalId }) => {
    run.approvalsDecided.add(approvalId);
  });
  try {
    // When a branch fails, the others settle first (their waits cut short), so that every step is recorded.
    await walk(run.walker, (id) => runNode(run, run.nodes.get(id)!), { settle: () => run.failedNode !== null });
    await run.start.begin();
    await finish(run, 'completed', null);
  } catch (err) {
    await finishAfter(run, err);
  }
}
