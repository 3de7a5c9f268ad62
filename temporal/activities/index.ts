import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { Actor } from '../../src/actor.ts';
import { AppError } from '../../src/errors.ts';
import { RunBookkeeping, type StepRecord } from '../../src/executions/bookkeeping.ts';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import { OutboxEvent } from '../../src/events/entity.ts';
import { businessDeadline, evaluateWithCalendars, type BusinessDeadline } from '../../src/calendars/runs.ts';
import type { ActionData, ConditionData, RunContext } from '../../src/graph/index.ts';
import type { Logger } from '../../src/logger.ts';
import { createServices } from '../../src/services.ts';
import { ticketContext, type TicketContext } from '../../src/tickets/context.ts';
import { readTicket } from '../../src/tickets/store.ts';
import { ticketChangeOf } from '../../src/tickets/change.ts';
import { queueDelivery } from '../../src/mail/outbound.ts';
import { runTickBatch, unfinishedEarlierTickRuns } from '../../src/triggers/ticks.ts';
import { performHttpRequest, type HttpRequestOptions, type HttpResult } from './http-request.ts';
import { takeChangesAtOnce, type BatchAnswer } from './changes-at-once.ts';
import { toRecord, type StepInput } from './steps.ts';

export type { StepInput } from './steps.ts';

export type ActivityDeps = {
  orm: MikroORM;
  logger: Logger;
  http: HttpRequestOptions;
  /** Starts the runs of scheduled ticks. */
  engine?: WorkflowEngine;
};

export type ActionInput = {
  executionId: string;
  workspaceId: string;
  workflowId: string;
  ticketId: string | null;
  chain: string[];
  nodeId: string;
  action: ActionData;
  startedAt: string;
  /** The node's position in the run's walk. */
  seq?: number;
  /** Steps the run walked since its last write, recorded with this action's effect. */
  steps?: StepInput[];
  /**
   * send_reply of a run that delivers the mail itself, as a step (runAutomation); without it
   * (runGraph, runs begun before mail) a delivery workflow of its own sends it.
   */
  deliverInRun?: boolean;
  /**
   * The run's first effect: the execution goes from pending to running in the action's own
   * transaction (one local activity, not two), and the action is not taken when it was
   * cancelled before it began (the outcome says `notRunning`).
   */
  begin?: boolean;
};

/** One action of runActions: its outcome, or the reason it failed (a broken rule: it changed nothing). */
export type BatchOutcome = ActionOutcome | { failed: string; failureType: string | null };

export type ActionOutcome = {
  result?: unknown;
  ticket?: Record<string, unknown>;
  completedAt?: string;
  /** A reply whose mail the run is to deliver next (its step is `waiting` until then). */
  deliver?: { messageId: string; to: string };
  /** Asked to begin the run, the action found it no longer pending or running (cancelled, gone) and did nothing. */
  notRunning?: true;
};

/** Sender of replies that workflows send. */
export const AUTOMATION_SENDER = { email: 'automation@deskflow.invalid', name: 'Deskflow automation' };

/**
 * The activities of the run workflows. Each opens its own unit of work. An action's effect and
 * its step record commit in one transaction, and a retried action whose step already
 * completed returns the recorded outcome instead of acting twice. A broken rule (an AppError
 * of status 4xx: the ticket is gone, a value is invalid) fails at once; anything else (the
 * database away, a connection reset) is thrown as it is, for the workflow's retry policy to
 * wait out.
 */
export function createActivities(deps: ActivityDeps) {
  const services = () => createServices(deps.orm.em.fork(), { logger: deps.logger, engine: deps.engine });
  const bookkeeping = () => new RunBookkeeping(deps.orm.em.fork());

  /** A ticket action (and, for runGraph, an outbound request), with its step and the steps walked before it. */
  async function act(input: ActionInput): Promise<ActionOutcome> {
    const s = services();
    const steps = new RunBookkeeping(s.em);
    const done = await steps.findStep(input.executionId, input.nodeId);
    if (done?.status === 'completed') {
      const ticket = input.ticketId ? ticketContext(await s.tickets.get(input.workspaceId, input.ticketId)) : undefined;
      return { result: done.result ?? undefined, ticket, completedAt: done.completedAt?.toISOString() };
    }
    const walked = (input.steps ?? []).map(toRecord);
    const actor: Actor = { type: 'workflow', workflowId: input.workflowId, executionId: input.executionId, chain: input.chain };
    const action = input.action;
    try {
      if (action.actionType === 'http_request') {
        const result = await performHttpRequest(action, `${input.executionId}:${input.nodeId}`, deps.http);
        const step = completedStep(input, result);
        await steps.recordSteps(input.executionId, [...walked, step]);
        return { result, completedAt: step.completedAt!.toISOString() };
      }
      const ticketId = input.ticketId;
      if (!ticketId) throw new AppError(400, 'no_ticket', `${action.actionType} needs a ticket, and this execution has none.`);
      return await s.em.transactional(async (em): Promise<ActionOutcome> => {
        if (input.begin && (await new RunBookkeeping(em).begin(input.executionId)) !== 'running') return { notRunning: true };
        const tx = createServices(em, { logger: deps.logger });
        if (action.actionType === 'send_reply') {
          const { message, ticket } = await tx.messages.add(
            input.workspaceId,
            ticketId,
            { direction: 'outbound', body: action.body, bodyHtml: action.bodyHtml ?? null, senderEmail: AUTOMATION_SENDER.email, senderName: AUTOMATION_SENDER.name, idempotencyKey: `${input.executionId}:${input.nodeId}` },
            actor,
          );
          // With a mailbox the mail is fixed now, with the message; the run then delivers it.
          const delivery = await queueDelivery(em, { workspaceId: input.workspaceId, ticketId, messageId: message.id, kind: 'automation', via: input.deliverInRun ? 'run' : 'workflow' });
          if (delivery === 'pending' && input.deliverInRun) {
            const step: StepRecord = { nodeId: input.nodeId, seq: input.seq, status: 'waiting', result: { messageId: message.id, delivery }, startedAt: new Date(input.startedAt), completedAt: null };
            await steps.recordSteps(input.executionId, [...walked, step], em);
            return { result: step.result, ticket: ticketContext(ticket), completedAt: new Date().toISOString(), deliver: { messageId: message.id, to: ticket.customerEmail } };
          }
          const step = completedStep(input, { messageId: message.id, delivery });
          await steps.recordSteps(input.executionId, [...walked, step], em);
          return { result: step.result, ticket: ticketContext(ticket), completedAt: step.completedAt!.toISOString() };
        }
        const ticket = await tx.tickets.update(input.workspaceId, ticketId, ticketChangeOf(action), actor);
        const step = completedStep(input, undefined);
        await steps.recordSteps(input.executionId, [...walked, step], em);
        return { ticket: ticketContext(ticket), completedAt: step.completedAt!.toISOString() };
      });
    } catch (err) {
      // A broken rule will break again on retry: fail the action at once with its reason.
      if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, err.code);
      throw err;
    }
  }

  return {
    /** pending → running, with the steps walked so far; the status afterwards. */
    async beginRun(input: { executionId: string; steps: StepInput[] }) {
      return bookkeeping().begin(input.executionId, input.steps.map(toRecord));
    },

    async recordSteps(input: { executionId: string; steps: StepInput[] }): Promise<void> {
      await bookkeeping().recordSteps(input.executionId, input.steps.map(toRecord));
    },

    /**
     * A run going on after a wait (or an outbound request): records the steps walked since its
     * last write and reads the ticket as it is now, so that what comes next decides on the
     * present. Null when the ticket is gone.
     */
    async resumeRun(input: { executionId: string; workspaceId: string; ticketId: string; steps: StepInput[] }): Promise<{ ticket: TicketContext | null }> {
      const em = deps.orm.em.fork();
      await new RunBookkeeping(em).recordSteps(input.executionId, input.steps.map(toRecord));
      try {
        return { ticket: ticketContext(await readTicket(em, input.workspaceId, input.ticketId)) };
      } catch (err) {
        if (err instanceof AppError && err.status === 404) return { ticket: null };
        throw err;
      }
    },

    /**
     * The deadline of a business-time wait that begins now: computed here, outside the
     * workflow, with the calendar as it is now, and recorded in the run's history, so that a
     * replay or another worker never computes it again (docs/automations.md, "Business hours").
     */
    async businessDeadline(input: { workspaceId: string; calendarId: string; from: string; seconds: number }): Promise<BusinessDeadline> {
      return nonRetryable(() => businessDeadline(deps.orm.em.fork(), input));
    },

    /** A condition that names calendars, evaluated at the run's `now` (recorded like the deadline above). */
    async evaluateWithCalendars(input: { workspaceId: string; condition: ConditionData; context: RunContext; now: string }): Promise<boolean> {
      return nonRetryable(() => evaluateWithCalendars(deps.orm.em.fork(), input));
    },

    async finishRun(input: { executionId: string; status: 'completed' | 'failed' | 'cancelled'; error: string | null; steps: StepInput[] }): Promise<void> {
      await bookkeeping().finish(input.executionId, input.status, input.error, input.steps.map(toRecord));
    },

    /** Whether the ticket's customer replied (an emitted TICKET_MESSAGE_ADDED) between the two instants, inclusive. */
    async customerRepliedBetween(input: { ticketId: string; from: string; to: string }): Promise<boolean> {
      const count = await deps.orm.em.fork().count(OutboxEvent, {
        ticketId: input.ticketId,
        type: 'message_received',
        createdAt: { $gte: new Date(input.from), $lte: new Date(input.to) },
      });
      return count > 0;
    },

    /** One attempt of an outbound request; the workflow records its step. */
    async httpRequest(input: ActionInput): Promise<HttpResult> {
      if (input.action.actionType !== 'http_request') throw ApplicationFailure.nonRetryable(`${input.action.actionType} is not an outbound request.`);
      return performHttpRequest(input.action, `${input.executionId}:${input.nodeId}`, deps.http);
    },

    /** How many executions of earlier ticks of the workflow are still unfinished. */
    async unfinishedEarlierTickRuns(input: { workflowId: string; tickStartedAt: number }): Promise<number> {
      return unfinishedEarlierTickRuns(services().em, input.workflowId, new Date(input.tickStartedAt));
    },

    /** One batch of a scheduled tick: creates and starts the executions of up to 200 matching tickets. */
    async runTickBatch(input: { workflowId: string; tickId: string; cursor: string | null }) {
      const s = services();
      return runTickBatch(s.em, s.dispatcher, { ...input, now: new Date() });
    },

    /** A ticket action (and, for runGraph, an outbound request), with its step and the steps walked before it. */
    runAction: act,

    /**
     * The ticket actions a run reached at once (parallel branches), in one local activity: each
     * in its own transaction, in order, the first with the steps walked before them (and, when
     * asked, beginning the run; passed on to the next when it breaks a rule). One that breaks a
     * rule fails alone, as its own outcome; an error worth retrying (the database away) fails
     * the whole call, and the retry finds the actions already taken by their recorded steps.
     * With `finish`, when every action succeeded and none has a mail to deliver, the run ends
     * completed here too: the actions were the last nodes it had to run.
     */
    async runActions(input: { actions: ActionInput[]; finish?: boolean }): Promise<BatchAnswer> {
      const atOnce = await takeChangesAtOnce(deps, input);
      if (atOnce) return atOnce;
      const outcomes: BatchOutcome[] = [];
      // What the first action carries (beginning the run, the steps walked before it) passes to
      // the next while they break rules: an action never takes effect in a run not begun.
      let carried: Pick<ActionInput, 'begin' | 'steps'> = {};
      for (const action of input.actions) {
        const attempt = { ...action, ...carried };
        try {
          const outcome = await act(attempt);
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
      if (finished) await bookkeeping().finish(first.executionId, 'completed', null);
      return { outcomes, finished };
    },

    // runGraph (the first version of the run workflow) records its steps one by one.
    async beginExecution(executionId: string) {
      return bookkeeping().begin(executionId);
    },
    async recordStep(executionId: string, step: StepInput): Promise<void> {
      await bookkeeping().recordSteps(executionId, [toRecord(step)]);
    },
    async finishExecution(executionId: string, status: 'completed' | 'failed' | 'cancelled', error: string | null): Promise<void> {
      await bookkeeping().finish(executionId, status, error);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** A broken rule (an AppError of status 4xx) fails at once; anything else is left to the retry policy. */
async function nonRetryable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  }
}

function completedStep(input: ActionInput, result: unknown): StepRecord {
  return { nodeId: input.nodeId, seq: input.seq, status: 'completed', result, startedAt: new Date(input.startedAt), completedAt: new Date() };
}
