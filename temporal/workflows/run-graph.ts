import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import { evaluateCondition, GraphWalker, nodeById, renderAction, walk, type ActionData, type GraphNode, type RunContext } from '../../src/graph/index.ts';
import type { RunGraphInput } from '../../src/executions/run-input.ts';
import type { Activities, ActionOutcome } from '../activities/types.ts';
import { customerReplied } from './signals.ts';
import { failureMessage } from './failure-message.ts';

const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 ms', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

/** Actions that change the world run as activities, retried with backoff; each names its node in the Web UI. */
function actionActivity(node: GraphNode, actionType: string) {
  return proxyActivities<Activities>({
    startToCloseTimeout: actionType === 'http_request' ? '15 seconds' : '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
    summary: `${node.id}: ${actionType}`,
  });
}

/**
 * The first version of the run workflow, kept unchanged for runs started before runAutomation
 * replaced it (a run waiting for days replays on this code when it resumes; see
 * test/engine/replay.test.ts). New runs use runAutomation. It may go once no run of type
 * `runGraph` is open: `temporal workflow count --query 'WorkflowType="runGraph" AND ExecutionStatus="Running"'`.
 *
 * Runs one execution of a workflow graph (docs/contract.md §5): starts at the trigger, follows edges,
 * runs fan-out branches in parallel and each join once, records every node's step, and ends
 * the execution completed, failed (naming the node) or cancelled.
 */
export async function runGraph(input: RunGraphInput): Promise<void> {
  let replies = 0;
  setHandler(customerReplied, () => {
    replies += 1;
  });

  let context: RunContext = input.context;
  const nodes = nodeById(input.graph);
  const walker = new GraphWalker(input.graph);

  async function runNode(node: GraphNode): Promise<boolean | undefined> {
    const startedAt = new Date();
    if (node.type === 'trigger') {
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'passed', startedAt, completedAt: startedAt });
      return undefined;
    }
    if (node.type === 'condition') {
      // This code only replays runs begun before RE2: their history holds RegExp's answers.
      const result = evaluateCondition(node.data, context, { regExpPatterns: true });
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'passed', result, startedAt, completedAt: startedAt });
      return result;
    }
    return runAction(node, node.data, startedAt);
  }

  async function runAction(node: GraphNode, action: ActionData, startedAt: Date): Promise<boolean | undefined> {
    if (action.actionType === 'delay') {
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'waiting', startedAt, completedAt: null });
      const ms = action.seconds !== undefined ? action.seconds * 1000 : Math.max(0, Date.parse(action.until ?? '') - Date.now());
      if (ms > 0) await sleep(ms);
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'completed', startedAt, completedAt: new Date() });
      return undefined;
    }
    if (action.actionType === 'wait_for_reply') {
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'waiting', startedAt, completedAt: null });
      const seen = replies;
      const replied = await condition(() => replies > seen, action.timeoutSeconds * 1000);
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'completed', result: replied, startedAt, completedAt: new Date() });
      return replied;
    }
    const rendered = renderAction(action, context);
    let outcome: ActionOutcome;
    try {
      outcome = await actionActivity(node, action.actionType).runAction({
        executionId: input.executionId,
        workspaceId: input.workspaceId,
        workflowId: input.workflowId,
        ticketId: input.ticketId,
        chain: input.chain,
        nodeId: node.id,
        action: rendered,
        startedAt: startedAt.toISOString(),
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      const reason = failureMessage(err);
      await bookkeeping.recordStep(input.executionId, { nodeId: node.id, status: 'failed', startedAt, completedAt: new Date(), error: reason });
      throw ApplicationFailure.nonRetryable(`Node "${node.id}" (${action.actionType}) failed: ${reason}`, 'ActionFailed');
    }
    if (outcome.ticket) context = { ...context, ticket: outcome.ticket };
    return undefined;
  }

  try {
    // Inside the try: a cancellation that arrives before the run begins is recorded too.
    const status = await bookkeeping.beginExecution(input.executionId);
    if (status !== 'running') return; // cancelled (or gone) before it began
    await walk(walker, (id) => runNode(nodes.get(id)!));
    await bookkeeping.finishExecution(input.executionId, 'completed', null);
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => bookkeeping.finishExecution(input.executionId, 'cancelled', null));
      throw err;
    }
    const message = failureMessage(err);
    log.warn('execution failed', { executionId: input.executionId, error: message });
    await bookkeeping.finishExecution(input.executionId, 'failed', message);
    // Fail the run too, so the Web UI shows it failed with the same readable message.
    throw ApplicationFailure.nonRetryable(message, 'ExecutionFailed');
  }
}
