import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { Actor } from '../../src/actor.ts';
import { AppError } from '../../src/errors.ts';
import { RunBookkeeping, type StepRecord } from '../../src/executions/bookkeeping.ts';
import type { ExecutionStep } from '../../src/executions/entity.ts';
import type { ActionData } from '../../src/graph/index.ts';
import { queueDelivery } from '../../src/mail/outbound.ts';
import { createServices } from '../../src/services.ts';
import { ticketChangeOf } from '../../src/tickets/change.ts';
import { ticketContext } from '../../src/tickets/context.ts';
import { nonRetryable } from './broken-rule.ts';
import { takeChangesAtOnce } from './changes-at-once.ts';
import { servicesOf, type ActivityDeps } from './deps.ts';
import { performHttpRequest } from './http-request.ts';
import { toRecord } from './steps.ts';
import type { ActionInput, ActionOutcome, Activities, BatchAnswer, BatchOutcome } from './types.ts';

/** Sender of replies that workflows send. */
const AUTOMATION_SENDER = { email: 'automation@deskflow.invalid', name: 'Deskflow automation' };

/**
 * The activities that act: ticket actions (with their steps, in one transaction) and outbound
 * requests. A retried action whose step already completed returns the recorded outcome instead
 * of acting twice.
 */
export function createActionActivities(deps: ActivityDeps): Pick<Activities, 'runAction' | 'runActions' | 'httpRequest'> {
  return {
    runAction: (input) => takeAction(deps, input),
    runActions: (input) => takeActions(deps, input),
    /** One attempt of an outbound request; the workflow records its step. */
    async httpRequest(input) {
      if (input.action.actionType !== 'http_request') throw ApplicationFailure.nonRetryable(`${input.action.actionType} is not an outbound request.`);
      return performHttpRequest(input.action, `${input.executionId}:${input.nodeId}`, deps.http);
    },
  };
}

/** A ticket action (and, for runGraph, an outbound request), with its step and the steps walked before it. */
async function takeAction(deps: ActivityDeps, input: ActionInput): Promise<ActionOutcome> {
  const s = servicesOf(deps);
  const steps = new RunBookkeeping(s.em);
  const done = await steps.findStep(input.executionId, input.nodeId);
  if (done?.status === 'completed') {
    const ticket = input.ticketId ? ticketContext(await s.tickets.get(input.workspaceId, input.ticketId)) : undefined;
    return recordedOutcome(done, ticket);
  }
  const walked = (input.steps ?? []).map(toRecord);
  const action = input.action;
  return nonRetryable(async () => {
    if (action.actionType === 'http_request') {
      const result = await performHttpRequest(action, `${input.executionId}:${input.nodeId}`, deps.http);
      const step = completedStep(input, result);
      await steps.recordSteps(input.executionId, [...walked, step]);
      return { result, completedAt: step.completedAt!.toISOString() };
    }
    const ticketId = input.ticketId;
    if (!ticketId) throw new AppError(400, 'no_ticket', `${action.actionType} needs a ticket, and this execution has none.`);
    return await s.em.transactional((em) => actOnTicket(deps, em, { ...input, ticketId }, walked));
  });
}

const recordedOutcome = (done: ExecutionStep, ticket: ActionOutcome['ticket']): ActionOutcome => ({ result: done.result ?? undefined, ticket, completedAt: done.completedAt?.toISOString() });

/** A ticket action in its transaction: the run begins first when asked, and the step is recorded with the effect. */
async function actOnTicket(deps: ActivityDeps, em: EntityManager, input: ActionInput & { ticketId: string }, walked: StepRecord[]): Promise<ActionOutcome> {
  const run = new RunBookkeeping(em);
  if (input.begin && (await run.begin(input.executionId)).status !== 'running') return { notRunning: true };
  const tx = createServices(em, { logger: deps.logger });
  const actor: Actor = { type: 'workflow', workflowId: input.workflowId, executionId: input.executionId, chain: input.chain };
  const action = input.action;
  if (action.actionType === 'send_reply') return sendReply(em, tx, input, action, actor, walked);
  const ticket = await tx.tickets.update(input.workspaceId, input.ticketId, ticketChangeOf(action), actor);
  const step = completedStep(input, undefined);
  await run.recordSteps(input.executionId, [...walked, step], em);
  return { ticket: ticketContext(ticket), completedAt: step.completedAt!.toISOString() };
}

/** send_reply: the message is written and, with a mailbox, its mail fixed now; a run that delivers it itself then waits for the delivery. */
async function sendReply(
  em: EntityManager,
  tx: ReturnType<typeof createServices>,
  input: ActionInput & { ticketId: string },
  action: Extract<ActionData, { actionType: 'send_reply' }>,
  actor: Actor,
  walked: StepRecord[],
): Promise<ActionOutcome> {
  const { workspaceId, ticketId } = input;
  const { message, ticket } = await tx.messages.add(
    workspaceId,
    ticketId,
    { direction: 'outbound', body: action.body, bodyHtml: action.bodyHtml ?? null, senderEmail: AUTOMATION_SENDER.email, senderName: AUTOMATION_SENDER.name, idempotencyKey: `${input.executionId}:${input.nodeId}` },
    actor,
  );
  const delivery = await queueDelivery(em, { workspaceId, ticketId, messageId: message.id, kind: 'automation', via: input.deliverInRun ? 'run' : 'workflow' });
  const run = new RunBookkeeping(em);
  if (delivery === 'pending' && input.deliverInRun) {
    const step: StepRecord = { nodeId: input.nodeId, seq: input.seq, status: 'waiting', result: { messageId: message.id, delivery }, startedAt: new Date(input.startedAt), completedAt: null };
    await run.recordSteps(input.executionId, [...walked, step], em);
    return { result: step.result, ticket: ticketContext(ticket), completedAt: new Date().toISOString(), deliver: { messageId: message.id, to: ticket.customerEmail } };
  }
  const step = completedStep(input, { messageId: message.id, delivery });
  await run.recordSteps(input.executionId, [...walked, step], em);
  return { result: step.result, ticket: ticketContext(ticket), completedAt: step.completedAt!.toISOString() };
}

/**
 * The ticket actions a run reached at once (parallel branches), in one local activity: each
 * in its own transaction, in order, the first with the steps walked before them (and, when
 * asked, beginning the run; passed on to the next when it breaks a rule). One that breaks a
 * rule fails alone, as its own outcome; an error worth retrying (the database away) fails
 * the whole call, and the retry finds the actions already taken by their recorded steps.
 * With `finish`, when every action succeeded and none has a mail to deliver, the run ends
 * completed here too: the actions were the last nodes it had to run.
 */
async function takeActions(deps: ActivityDeps, input: { actions: ActionInput[]; finish?: boolean }): Promise<BatchAnswer> {
  const atOnce = await takeChangesAtOnce(deps, input);
  if (atOnce) return atOnce;
  const outcomes: BatchOutcome[] = [];
  // What the first action carries (beginning the run, the steps walked before it) passes to
  // the next while they break rules: an action never takes effect in a run not begun.
  let carried: Pick<ActionInput, 'begin' | 'steps'> = {};
  for (const action of input.actions) {
    const attempt = { ...action, ...carried };
    try {
      const outcome = await takeAction(deps, attempt);
      if (outcome.notRunning) return { outcomes: [], finished: false, notRunning: true };
      outcomes.push(outcome);
      carried = {};
    } catch (err) {
      if (!(err instanceof ApplicationFailure) || !err.nonRetryable) throw err;
      outcomes.push({ failed: err.message, failureType: err.type ?? null });
      if (attempt.begin || attempt.steps?.length) carried = { begin: attempt.begin, steps: attempt.steps };
    }
  }
  const [first] = input.actions;
  const finished = Boolean(input.finish && first && outcomes.every((o) => !('failed' in o) && !o.deliver));
  if (finished) await new RunBookkeeping(deps.orm.em.fork()).finish(first.executionId, 'completed', null);
  return { outcomes, finished };
}

function completedStep(input: ActionInput, result: unknown): StepRecord {
  return { nodeId: input.nodeId, seq: input.seq, status: 'completed', result, startedAt: new Date(input.startedAt), completedAt: new Date() };
}
