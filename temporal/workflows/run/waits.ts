import { condition, sleep } from '@temporalio/workflow';
import { formatDuration, parseIsoInstant, type ActionData } from '../../../src/graph/index.ts';
import { nodeFailed } from './failure.ts';
import { local } from './proxies.ts';
import type { RunState, Visit } from './state.ts';
// Each node function here is the whole of its node's visit (it begins the run first): adding
// an async layer between the walk and these awaits would move the run's commands in time.
import { resumed, waiting } from './waiting.ts';

type Delay = Extract<ActionData, { actionType: 'delay' }>;
type WaitForReply = Extract<ActionData, { actionType: 'wait_for_reply' }>;

/** A delay node: for a time, until an instant, or for a calendar's open time. Its step waits until then. */
export async function delay(run: RunState, visit: Visit, action: Delay): Promise<undefined> {
  const { node, startedAt, seq } = visit;
  await run.start.begin();
  if (action.businessSeconds !== undefined) {
    const wait = await businessWait(run, visit, action.calendarId, action.businessSeconds);
    const ms = wait.until - Date.now();
    if (ms > 0) {
      const what = `${node.id}: delay of ${formatDuration(action.businessSeconds * 1000)} of open time (calendar ${JSON.stringify(wait.calendarName)}) until ${new Date(wait.until).toISOString()}`;
      await waiting(run, what, (summary) => sleep(ms, { summary }));
    }
    await resumed(run, { nodeId: node.id, seq, status: 'completed', startedAt, completedAt: run.now(), until: new Date(wait.until) });
    return undefined;
  }
  const until = action.seconds !== undefined ? new Date(startedAt.getTime() + action.seconds * 1000) : new Date(Math.max(parseIsoInstant(action.until ?? '') ?? 0, startedAt.getTime()));
  await waitingStep(run, visit, until);
  const ms = action.seconds !== undefined ? action.seconds * 1000 : (parseIsoInstant(action.until ?? '') ?? 0) - Date.now();
  if (ms > 0) await waiting(run, `${node.id}: delay until ${new Date(Date.now() + ms).toISOString()}`, (summary) => sleep(ms, { summary }));
  await resumed(run, { nodeId: node.id, seq, status: 'completed', startedAt, completedAt: run.now(), until });
  return undefined;
}

/** A wait_for_reply node: true when the customer replied in time, for a time or a calendar's open time. */
export async function waitForReply(run: RunState, visit: Visit, action: WaitForReply): Promise<boolean> {
  const { node, startedAt, seq } = visit;
  await run.start.begin();
  if (action.calendarId !== undefined) {
    const wait = await businessWait(run, visit, action.calendarId, action.timeoutSeconds);
    const until = new Date(wait.until);
    const what = `${node.id}: wait_for_reply from the customer for ${formatDuration(action.timeoutSeconds * 1000)} of open time (calendar ${JSON.stringify(wait.calendarName)}) until ${until.toISOString()}`;
    const replied = await waiting(run, what, (summary) => replyWithin(run, startedAt.getTime(), wait.until, Math.max(1, wait.until - Date.now()), summary));
    await resumed(run, { nodeId: node.id, seq, status: 'completed', result: replied, startedAt, completedAt: run.now(), until });
    return replied;
  }
  const until = new Date(startedAt.getTime() + action.timeoutSeconds * 1000);
  await waitingStep(run, visit, until);
  const replied = await waiting(run, `${node.id}: wait_for_reply from the customer until ${until.toISOString()}`, (summary) =>
    replyWithin(run, startedAt.getTime(), until.getTime(), action.timeoutSeconds * 1000, summary),
  );
  await resumed(run, { nodeId: node.id, seq, status: 'completed', result: replied, startedAt, completedAt: run.now(), until });
  return replied;
}

/**
 * True once the customer replies within [since, until], waiting at most `timeoutMs`. The
 * signal may come late (Temporal, the worker or the relay were away): at the timeout the
 * database, where every reply is written first, settles it.
 */
async function replyWithin(run: RunState, since: number, until: number, timeoutMs: number, summary: string): Promise<boolean> {
  const inTime = () => [...run.replies.values()].some((at) => at === undefined || (at >= since && at <= until));
  if (await condition(inTime, timeoutMs, { summary })) return true;
  if (!run.input.ticketId) return false;
  return local.customerRepliedBetween({ ticketId: run.input.ticketId, from: new Date(since).toISOString(), to: new Date(until).toISOString() });
}

/**
 * A wait counted in a calendar's open time begins: its deadline is computed once, outside the
 * sandbox (a local activity reads the calendar), and recorded with the waiting step. A
 * calendar that cannot give one fails the node.
 */
async function businessWait(run: RunState, visit: Visit, calendarId: string, seconds: number): Promise<{ until: number; calendarName: string }> {
  let deadline;
  try {
    deadline = await local.businessDeadline({ workspaceId: run.input.workspaceId, calendarId, from: visit.startedAt.toISOString(), seconds });
  } catch (err) {
    throw nodeFailed(run, visit, err);
  }
  const until = Date.parse(deadline.until);
  await waitingStep(run, visit, new Date(until));
  return { until, calendarName: deadline.calendarName };
}

/** The node's step is recorded waiting, until `until`, with the steps walked before it. */
function waitingStep(run: RunState, { node, startedAt, seq }: Visit, until: Date): Promise<void> {
  return local.recordSteps({ executionId: run.executionId, steps: [...run.take(), { nodeId: node.id, seq, status: 'waiting', startedAt, completedAt: null, until }] });
}
