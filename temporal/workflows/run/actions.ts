import { patched } from '@temporalio/workflow';
import { parseIsoInstant, renderAction, type ActionData } from '../../../src/graph/index.ts';
import type { ActionInput, ActionOutcome } from '../../activities/types.ts';
import { deliverMessage } from '../mail-delivery.ts';
import { ACTIONS_TOGETHER, REPLIES_BY_MAIL } from '../patches.ts';
import { nodeFailed } from './failure.ts';
import { local, outbound } from './proxies.ts';
import { NotRunning } from './start.ts';
import type { RunState, Visit } from './state.ts';
import { resumed, waiting } from './waiting.ts';

/**
 * An action node of the run: an outbound request (a regular activity), or a ticket action (a
 * local activity, shared with the actions reached at once since ACTIONS_TOGETHER; the first
 * may begin the run, `begin`). A send_reply with a mailbox then delivers its mail as part of
 * its step (since REPLIES_BY_MAIL), and the run reads its ticket afresh, as after a wait.
 */
export async function runAction(run: RunState, visit: Visit, action: ActionData, opts: { begin?: boolean } = {}): Promise<undefined> {
  const { node, startedAt, seq } = visit;
  const request = actionRequest(run, visit, action);
  let outcome: ActionOutcome;
  try {
    if (action.actionType === 'http_request') {
      outcome = { result: await outbound(node).httpRequest(request) };
      await resumed(run, { nodeId: node.id, seq, status: 'completed', result: outcome.result, startedAt, completedAt: run.now() });
    } else {
      const deliverInRun = action.actionType === 'send_reply' && patched(REPLIES_BY_MAIL);
      const asked: ActionInput = { ...request, ...(deliverInRun ? { deliverInRun } : {}), ...(opts.begin ? { begin: true } : {}) };
      if (patched(ACTIONS_TOGETHER)) {
        outcome = await run.together.take(asked);
      } else {
        const walked = run.take();
        try {
          outcome = await local.runAction({ ...asked, steps: walked });
        } catch (err) {
          // Its transaction did not commit: the steps it was to record go with the next write.
          run.record(...walked);
          throw err;
        }
      }
      if (outcome.notRunning) throw new NotRunning();
      if (opts.begin) run.start.begunByAction();
      run.clock = Math.max(run.clock, parseIsoInstant(outcome.completedAt ?? '') ?? 0);
      const mail = outcome.deliver;
      if (mail) {
        // The message is written and its mail fixed; the step waits until the server took it.
        run.ticketIs(outcome.ticket);
        const delivery = await waiting(run, `${node.id}: sending the reply to ${mail.to}`, (summary) => deliverMessage(mail.messageId, summary), { cutShortOnFailure: false });
        // Sending may have taken long: the run reads its ticket afresh, as after a wait.
        outcome = { result: { messageId: mail.messageId, delivery } };
        await resumed(run, { nodeId: node.id, seq, status: 'completed', result: outcome.result, startedAt, completedAt: run.now() });
      }
    }
  } catch (err) {
    throw nodeFailed(run, visit, err);
  }
  run.ticketIs(outcome.ticket);
  return undefined;
}

/** What the activity is asked: the action rendered with what the run knows now. */
function actionRequest(run: RunState, { node, startedAt, seq }: Visit, action: ActionData): ActionInput {
  const { input } = run;
  return {
    seq,
    executionId: run.executionId,
    workspaceId: input.workspaceId,
    workflowId: input.workflowId,
    ticketId: input.ticketId,
    chain: input.chain,
    nodeId: node.id,
    action: renderAction(action, run.context),
    startedAt: startedAt.toISOString(),
  };
}
