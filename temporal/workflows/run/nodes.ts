import { conditionCalendarIds, evaluateCondition, parseIsoInstant, type ActionData, type ConditionData, type GraphNode } from '../../../src/graph/index.ts';
import { runAction } from './actions.ts';
import { requestApproval } from './approval.ts';
import { cutShort, nodeFailed } from './failure.ts';
import { local } from './proxies.ts';
import type { RunState, Visit } from './state.ts';
import { delay, waitForReply } from './waits.ts';

/**
 * One node of the walk: the trigger and conditions need no I/O (their steps go with the next
 * write), waits and actions are in ./waits.ts, ./approval.ts and ./actions.ts. Answers the outcome of a
 * condition, a reply wait or an approval; a branch cut short by a failure elsewhere ends here, saying why.
 */
export async function runNode(run: RunState, node: GraphNode): Promise<boolean | undefined> {
  const visit: Visit = { node, startedAt: run.now(), seq: run.visit(node.id) };
  try {
    return await visitNode(run, visit);
  } catch (err) {
    if (cutShort(run, visit, err)) return undefined;
    throw err;
  }
}

/** The visit of each kind of node (each function is the whole of its node's visit, as one async call). */
function visitNode(run: RunState, visit: Visit): Promise<boolean | undefined> {
  const { node } = visit;
  if (node.type === 'trigger') return passTrigger(run, visit);
  if (node.type === 'condition') return decide(run, visit, node.data);
  const action = node.data;
  if (action.actionType === 'delay') return delay(run, visit, action);
  if (action.actionType === 'wait_for_reply') return waitForReply(run, visit, action);
  if (action.actionType === 'request_approval') return requestApproval(run, visit, action);
  return act(run, visit, action);
}

async function passTrigger(run: RunState, { node, startedAt, seq }: Visit): Promise<undefined> {
  run.record({ nodeId: node.id, seq, status: 'passed', startedAt, completedAt: startedAt });
  return undefined;
}

async function decide(run: RunState, visit: Visit, data: ConditionData): Promise<boolean> {
  const { node, startedAt, seq } = visit;
  // `now` of a condition before the first action or wait is when the execution was created,
  // the instant its first walk decided on; after that, the run's time at the node.
  const { createdAt } = run.input;
  const at = run.start.undecided && createdAt !== undefined ? (parseIsoInstant(createdAt) ?? startedAt.getTime()) : startedAt.getTime();
  // A condition that names a calendar is answered outside the sandbox, and its answer recorded.
  if (conditionCalendarIds(data).length > 0) return calendarCondition(run, visit, data, at);
  const result = evaluateCondition(data, run.context, { now: at });
  run.record({ nodeId: node.id, seq, status: 'passed', result, startedAt, completedAt: startedAt });
  return result;
}

/** A condition that names calendars, answered by a local activity at `at` (the run's now). */
async function calendarCondition(run: RunState, visit: Visit, data: ConditionData, at: number): Promise<boolean> {
  const { node, startedAt, seq } = visit;
  let result: boolean;
  try {
    result = await local.evaluateWithCalendars({ workspaceId: run.input.workspaceId, condition: data, context: run.context, now: new Date(at).toISOString() });
  } catch (err) {
    throw nodeFailed(run, visit, err);
  }
  run.record({ nodeId: node.id, seq, status: 'passed', result, startedAt, completedAt: startedAt });
  return result;
}

/** An action other than a wait: a ticket action may begin the run itself; anything else begins it first. */
async function act(run: RunState, visit: Visit, action: Exclude<ActionData, { actionType: 'delay' | 'wait_for_reply' | 'request_approval' }>): Promise<undefined> {
  const start = run.start.before(action.actionType !== 'http_request');
  if (start === 'with-action') return runAction(run, visit, action, { begin: true });
  await start;
  return runAction(run, visit, action);
}
