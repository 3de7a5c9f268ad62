import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import {
  conditionCalendarIds,
  evaluateCondition,
  formatDuration,
  GraphWalker,
  nodeById,
  parseIsoInstant,
  renderAction,
  walk,
  type ActionData,
  type ConditionData,
  type GraphNode,
  type RunContext,
} from '../../src/graph/index.ts';
import type { RunGraphInput } from '../../src/executions/run-input.ts';
import type { Activities, ActionInput, ActionOutcome, StepInput } from '../activities/index.ts';
import { customerReplied } from './signals.ts';
import { failureMessage } from './failure-message.ts';
import { deliverMessage } from './mail-delivery.ts';

/**
 * Deskflow's own work, in the worker's process: short database writes, retried for as long as
 * the database is away (an outage is waited out, never turned into a failure); only a broken
 * rule (non-retryable) fails. The backoff is capped at 5 seconds so that runs move again within
 * seconds of the database coming back, however long it was away. Local activities of one
 * workflow task cost one round trip to Temporal together.
 */
const RETRY_UNTIL_IT_WORKS = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' } as const;
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute', retry: RETRY_UNTIL_IT_WORKS });

/** An outbound request: a regular activity (it may take seconds), each attempt with the same Idempotency-Key. */
function outbound(node: GraphNode) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
    summary: `${node.id}: http_request`,
  });
}

/** The execution ended before it began (cancelled meanwhile): nothing to run, nothing to record. */
class NotRunning extends Error {}

// Changes to runs in flight (docs/automations.md, "What a run sees"); histories made before
// them replay as they ran (test/engine/replay.test.ts).
/** After a wait or an outbound request the run reads its ticket afresh. */
const TICKET_AFTER_WAITS = 'ticket-after-waits';
/** When an action fails, the other branches settle and every node's outcome is recorded. */
const BRANCHES_SETTLE = 'branches-settle-on-failure';
/** A send_reply delivers its mail (with a mailbox) as part of its step. */
const REPLIES_BY_MAIL = 'send-reply-delivers-mail';
/** A run whose first effect is a ticket action begins in that action's local activity, not in one of its own. */
const BEGIN_WITH_ACTION = 'begin-with-first-action';
/** Ticket actions reached at once share one local activity, which also ends the run when they are its last nodes. */
const ACTIONS_TOGETHER = 'actions-together';

/**
 * Runs one execution of a workflow graph (docs/automations.md): starts at the trigger, follows
 * edges, runs fan-out branches in parallel and each join once, and ends the execution
 * completed, failed (naming the node) or cancelled. Steps of the trigger and of conditions
 * need no I/O: they are recorded with the next write that happens anyway.
 */
export async function runAutomation(input: RunGraphInput): Promise<void> {
  const replies = new Map<string, number | undefined>();
  setHandler(customerReplied, ({ messageId, at }) => {
    replies.set(messageId, at === undefined ? undefined : parseIsoInstant(at));
  });

  let context: RunContext = input.context;
  const root = CancellationScope.current();
  const nodes = nodeById(input.graph);
  const walker = new GraphWalker(input.graph);
  const unrecorded: StepInput[] = [];
  const take = () => unrecorded.splice(0);
  const { executionId } = input;

  let beginning: Promise<void> | null = null;
  /** pending → running once, with the steps walked so far, before the first effect. */
  const begin = () =>
    (beginning ??= local.beginRun({ executionId, steps: take() }).then((status) => {
      if (status !== 'running') throw new NotRunning();
    }));
  /**
   * Whether a ticket action about to run is to begin the run itself: the run has not begun (nor
   * is beginning), and it is not a run that began the older way. Every action started before
   * one of them came back running carries it (parallel branches), each harmlessly.
   */
  let beginsWithAction = false;
  const actionBegins = () => beginsWithAction || (beginning === null && (beginsWithAction = patched(BEGIN_WITH_ACTION)));
  const begun = () => {
    beginsWithAction = false;
    beginning ??= Promise.resolve();
  };

  // Workflow time stands still while local activities of one task run; their completion
  // times come from the worker's clock. A step never starts before what led to it ended.
  let clock = 0;
  const now = () => new Date(Math.max(Date.now(), clock));
  /**
   * What the run waits for, shown as its current details in the Web UI (branches may wait at
   * once). A wait has a scope of its own, so that a failure elsewhere can end it alone; sending
   * a mail is waited for too, but never cut short that way: once under way it ends as it ends.
   */
  const waits = new Map<string, CancellationScope | null>();
  async function waiting<T>(what: string, wait: (summary: string) => Promise<T>, opts: { cutShortOnFailure?: boolean } = {}): Promise<T> {
    const scope = opts.cutShortOnFailure === false ? null : new CancellationScope();
    waits.set(what, scope);
    setCurrentDetails(`Waiting: ${[...waits.keys()].join('; ')}`);
    try {
      return await (scope ? scope.run(() => wait(what)) : wait(what));
    } finally {
      waits.delete(what);
      setCurrentDetails(waits.size ? `Waiting: ${[...waits.keys()].join('; ')}` : '');
    }
  }

  /** The node whose failure ends the run, once one failed; waits elsewhere are then cut short. */
  let failedNode: string | null = null;
  function branchFailed(nodeId: string): void {
    failedNode = nodeId;
    for (const scope of waits.values()) scope?.cancel();
  }

  /** After a wait or an outbound request: the step is recorded and the run goes on with the ticket as it is now. */
  async function resumed(step: StepInput): Promise<void> {
    if (!input.ticketId || !patched(TICKET_AFTER_WAITS)) {
      unrecorded.push(step);
      return;
    }
    const { ticket } = await local.resumeRun({ executionId, workspaceId: input.workspaceId, ticketId: input.ticketId, steps: [...take(), step] });
    if (ticket) context = { ...context, ticket };
  }

  /**
   * Ticket actions reached in the same moment (parallel branches) go to the worker together, in
   * one local activity, once the walk has started all of them. When nothing else is running and
   * nothing follows them, that activity also ends the run (`ended`), its last write.
   */
  let queued: Array<{ request: ActionInput; resolve: (outcome: ActionOutcome) => void; reject: (err: unknown) => void }> = [];
  let ended = false;
  const together = (request: ActionInput) =>
    new Promise<ActionOutcome>((resolve, reject) => {
      if (queued.length === 0) void Promise.resolve().then(runTogether);
      queued.push({ request, resolve, reject });
    });
  async function runTogether(): Promise<void> {
    const batch = queued;
    queued = [];
    const ids = new Set(batch.map((q) => q.request.nodeId));
    const last = walker.running().every((id) => ids.has(id)) && !input.graph.edges.some((e) => ids.has(e.source));
    const begins = batch.some((q) => q.request.begin);
    const walked = take();
    const actions = batch.map(({ request: { begin: _, ...request } }, i) => ({ ...request, ...(i === 0 ? { steps: walked, ...(begins ? { begin: true } : {}) } : { steps: [] }) }));
    let answer: Awaited<ReturnType<typeof local.runActions>>;
    try {
      answer = await local.runActions({ actions, finish: last });
    } catch (err) {
      // Nothing of it committed that a retry would not have found: its steps go with the next write.
      unrecorded.push(...walked);
      for (const q of batch) q.reject(err);
      return;
    }
    if (answer.notRunning) {
      for (const q of batch) q.reject(new NotRunning());
      return;
    }
    ended = answer.finished;
    const [first] = answer.outcomes;
    if (first && 'failed' in first) unrecorded.push(...walked);
    answer.outcomes.forEach((outcome, i) => ('failed' in outcome ? batch[i].reject(ApplicationFailure.nonRetryable(outcome.failed, outcome.failureType)) : batch[i].resolve(outcome)));
  }

  let visited = 0;
  const visitedIds = new Set<string>();
  async function runNode(node: GraphNode): Promise<boolean | undefined> {
    const startedAt = now();
    const seq = ++visited;
    visitedIds.add(node.id);
    try {
      return await runVisited(node, startedAt, seq);
    } catch (err) {
      // A wait cut short because another branch failed: the branch ends here, and says why.
      if (failedNode !== null && isCancellation(err) && !root.consideredCancelled) {
        unrecorded.push({ nodeId: node.id, seq, status: 'cancelled', startedAt, completedAt: now(), error: `Not waited out: node "${failedNode}" failed.` });
        return undefined;
      }
      throw err;
    }
  }

  async function runVisited(node: GraphNode, startedAt: Date, seq: number): Promise<boolean | undefined> {
    if (node.type === 'trigger') {
      unrecorded.push({ nodeId: node.id, seq, status: 'passed', startedAt, completedAt: startedAt });
      return undefined;
    }
    if (node.type === 'condition') {
      // `now` of a condition before the first action or wait is when the execution was created,
      // the instant its first walk decided on; after that, the run's time at the node.
      const at = beginning === null && !beginsWithAction && input.createdAt !== undefined ? (parseIsoInstant(input.createdAt) ?? startedAt.getTime()) : startedAt.getTime();
      // A condition that names a calendar is answered outside the sandbox, and its answer recorded.
      if (conditionCalendarIds(node.data).length > 0) return calendarCondition(node, node.data, at, startedAt, seq);
      const result = evaluateCondition(node.data, context, { now: at });
      unrecorded.push({ nodeId: node.id, seq, status: 'passed', result, startedAt, completedAt: startedAt });
      return result;
    }
    const action = node.data;
    if (action.actionType !== 'http_request' && action.actionType !== 'delay' && action.actionType !== 'wait_for_reply' && actionBegins()) {
      return runAction(node, action, startedAt, seq, { begin: true });
    }
    await begin();
    if (action.actionType === 'delay' && action.businessSeconds !== undefined) {
      const wait = await businessWait(node, action.calendarId, action.businessSeconds, startedAt, seq);
      const ms = wait.until - Date.now();
      if (ms > 0) {
        const what = `${node.id}: delay of ${formatDuration(action.businessSeconds * 1000)} of open time (calendar ${JSON.stringify(wait.calendarName)}) until ${new Date(wait.until).toISOString()}`;
        await waiting(what, (summary) => sleep(ms, { summary }));
      }
      await resumed({ nodeId: node.id, seq, status: 'completed', startedAt, completedAt: now(), until: new Date(wait.until) });
      return undefined;
    }
    if (action.actionType === 'delay') {
      const until = action.seconds !== undefined ? new Date(startedAt.getTime() + action.seconds * 1000) : new Date(Math.max(parseIsoInstant(action.until ?? '') ?? 0, startedAt.getTime()));
      await local.recordSteps({ executionId, steps: [...take(), { nodeId: node.id, seq, status: 'waiting', startedAt, completedAt: null, until }] });
      const ms = action.seconds !== undefined ? action.seconds * 1000 : (parseIsoInstant(action.until ?? '') ?? 0) - Date.now();
      if (ms > 0) await waiting(`${node.id}: delay until ${new Date(Date.now() + ms).toISOString()}`, (summary) => sleep(ms, { summary }));
      await resumed({ nodeId: node.id, seq, status: 'completed', startedAt, completedAt: now(), until });
      return undefined;
    }
    if (action.actionType === 'wait_for_reply' && action.calendarId !== undefined) {
      const wait = await businessWait(node, action.calendarId, action.timeoutSeconds, startedAt, seq);
      const until = new Date(wait.until);
      const what = `${node.id}: wait_for_reply from the customer for ${formatDuration(action.timeoutSeconds * 1000)} of open time (calendar ${JSON.stringify(wait.calendarName)}) until ${until.toISOString()}`;
      const replied = await waiting(what, (summary) => waitForReply(startedAt.getTime(), wait.until, Math.max(1, wait.until - Date.now()), summary));
      await resumed({ nodeId: node.id, seq, status: 'completed', result: replied, startedAt, completedAt: now(), until });
      return replied;
    }
    if (action.actionType === 'wait_for_reply') {
      const until = new Date(startedAt.getTime() + action.timeoutSeconds * 1000);
      await local.recordSteps({ executionId, steps: [...take(), { nodeId: node.id, seq, status: 'waiting', startedAt, completedAt: null, until }] });
      const replied = await waiting(`${node.id}: wait_for_reply from the customer until ${until.toISOString()}`, (summary) =>
        waitForReply(startedAt.getTime(), until.getTime(), action.timeoutSeconds * 1000, summary),
      );
      await resumed({ nodeId: node.id, seq, status: 'completed', result: replied, startedAt, completedAt: now(), until });
      return replied;
    }
    return runAction(node, action, startedAt, seq);
  }

  /**
   * True once the customer replies within [since, until], waiting at most `timeoutMs`. The
   * signal may come late (Temporal, the worker or the relay were away): at the timeout the
   * database, where every reply is written first, settles it.
   */
  async function waitForReply(since: number, until: number, timeoutMs: number, summary: string): Promise<boolean> {
    const inTime = () => [...replies.values()].some((at) => at === undefined || (at >= since && at <= until));
    if (await condition(inTime, timeoutMs, { summary })) return true;
    if (!input.ticketId) return false;
    return local.customerRepliedBetween({ ticketId: input.ticketId, from: new Date(since).toISOString(), to: new Date(until).toISOString() });
  }

  /**
   * A wait counted in a calendar's open time begins: its deadline is computed once, outside the
   * sandbox (a local activity reads the calendar), and recorded with the waiting step. A
   * calendar that cannot give one fails the node.
   */
  async function businessWait(node: GraphNode, calendarId: string, seconds: number, startedAt: Date, seq: number): Promise<{ until: number; calendarName: string }> {
    let deadline;
    try {
      deadline = await local.businessDeadline({ workspaceId: input.workspaceId, calendarId, from: startedAt.toISOString(), seconds });
    } catch (err) {
      throw nodeFailed(node, err, startedAt, seq);
    }
    const until = Date.parse(deadline.until);
    await local.recordSteps({ executionId, steps: [...take(), { nodeId: node.id, seq, status: 'waiting', startedAt, completedAt: null, until: new Date(until) }] });
    return { until, calendarName: deadline.calendarName };
  }

  /** A condition that names calendars, answered by a local activity at `at` (the run's now). */
  async function calendarCondition(node: GraphNode, data: ConditionData, at: number, startedAt: Date, seq: number): Promise<boolean> {
    let result: boolean;
    try {
      result = await local.evaluateWithCalendars({ workspaceId: input.workspaceId, condition: data, context, now: new Date(at).toISOString() });
    } catch (err) {
      throw nodeFailed(node, err, startedAt, seq);
    }
    unrecorded.push({ nodeId: node.id, seq, status: 'passed', result, startedAt, completedAt: startedAt });
    return result;
  }

  /** A node that cannot go on: its step fails with the reason, the other branches settle, the run fails naming it. */
  function nodeFailed(node: GraphNode, err: unknown, startedAt: Date, seq: number): unknown {
    if (isCancellation(err) || err instanceof NotRunning) return err;
    const reason = failureMessage(err);
    unrecorded.push({ nodeId: node.id, seq, status: 'failed', startedAt, completedAt: now(), error: reason });
    if (failedNode === null && patched(BRANCHES_SETTLE)) branchFailed(node.id);
    const what = node.type === 'action' ? node.data.actionType : node.type;
    return ApplicationFailure.nonRetryable(`Node "${node.id}" (${what}) failed: ${reason}`, 'ActionFailed');
  }

  async function runAction(node: GraphNode, action: ActionData, startedAt: Date, seq: number, opts: { begin?: boolean } = {}): Promise<undefined> {
    const request = {
      seq,
      executionId,
      workspaceId: input.workspaceId,
      workflowId: input.workflowId,
      ticketId: input.ticketId,
      chain: input.chain,
      nodeId: node.id,
      action: renderAction(action, context),
      startedAt: startedAt.toISOString(),
    };
    let outcome: ActionOutcome;
    try {
      if (action.actionType === 'http_request') {
        outcome = { result: await outbound(node).httpRequest(request) };
        await resumed({ nodeId: node.id, seq, status: 'completed', result: outcome.result, startedAt, completedAt: now() });
      } else {
        const deliverInRun = action.actionType === 'send_reply' && patched(REPLIES_BY_MAIL);
        const asked: ActionInput = { ...request, ...(deliverInRun ? { deliverInRun } : {}), ...(opts.begin ? { begin: true } : {}) };
        if (patched(ACTIONS_TOGETHER)) {
          outcome = await together(asked);
        } else {
          const walked = take();
          try {
            outcome = await local.runAction({ ...asked, steps: walked });
          } catch (err) {
            // Its transaction did not commit: the steps it was to record go with the next write.
            unrecorded.push(...walked);
            throw err;
          }
        }
        if (outcome.notRunning) throw new NotRunning();
        if (opts.begin) begun();
        clock = Math.max(clock, parseIsoInstant(outcome.completedAt ?? '') ?? 0);
        const mail = outcome.deliver;
        if (mail) {
          // The message is written and its mail fixed; the step waits until the server took it.
          if (outcome.ticket) context = { ...context, ticket: outcome.ticket };
          const delivery = await waiting(`${node.id}: sending the reply to ${mail.to}`, (summary) => deliverMessage(mail.messageId, summary), { cutShortOnFailure: false });
          // Sending may have taken long: the run reads its ticket afresh, as after a wait.
          outcome = { result: { messageId: mail.messageId, delivery } };
          await resumed({ nodeId: node.id, seq, status: 'completed', result: outcome.result, startedAt, completedAt: now() });
        }
      }
    } catch (err) {
      throw nodeFailed(node, err, startedAt, seq);
    }
    if (outcome.ticket) context = { ...context, ticket: outcome.ticket };
    return undefined;
  }

  /**
   * Nodes the run never came to because it ended first (not those on branches not taken): with
   * them the steps tell what the run did, what it cut short and what it never did.
   */
  const notReached = (): StepInput[] => {
    const skipped = new Set(walker.skipped());
    const at = now();
    return input.graph.nodes
      .filter((n) => !visitedIds.has(n.id) && !skipped.has(n.id))
      .map((n) => ({ nodeId: n.id, status: 'not_reached' as const, startedAt: at, completedAt: at }));
  };
  const finish = (status: 'completed' | 'failed' | 'cancelled', error: string | null) =>
    local.finishRun({ executionId, status, error, steps: status === 'completed' ? take() : [...take(), ...notReached()] });

  try {
    // When a branch fails, the others settle first (their waits cut short), so that every step is recorded.
    await walk(walker, (id) => runNode(nodes.get(id)!), { settle: () => failedNode !== null });
    await begin();
    if (!ended) await finish('completed', null);
  } catch (err) {
    if (err instanceof NotRunning) return;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finish('cancelled', null));
      throw err;
    }
    const message = failureMessage(err);
    log.warn('execution failed', { executionId, error: message });
    await finish('failed', message);
    // Fail the run too, so the Web UI shows it failed with the same readable message.
    throw ApplicationFailure.nonRetryable(message, 'ExecutionFailed');
  }
}
