import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../../src/errors.ts';
import type { Actor } from '../../src/events/outbox.ts';
import type { ActionData } from '../../src/graph/index.ts';
import type { Logger } from '../../src/logger.ts';
import type { StepStatus } from '../../src/executions/entity.ts';
import { ticketContext } from '../../src/tickets/presenter.ts';
import type { TicketChange } from '../../src/tickets/service.ts';
import { assigneeId } from '../../src/tickets/schema.ts';
import { createServices } from '../../src/services.ts';
import { performHttpRequest, type HttpRequestOptions } from './http-request.ts';
import type { WorkflowEngine } from '../../src/executions/run-input.ts';
import { runTickBatch, unfinishedEarlierTickRuns } from '../../src/workflows/ticks.ts';

export type ActivityDeps = {
  orm: MikroORM;
  logger: Logger;
  http: HttpRequestOptions;
  /** Starts the runs of scheduled ticks. */
  engine?: WorkflowEngine;
};

export type StepInput = {
  nodeId: string;
  status: StepStatus;
  result?: unknown;
  startedAt: Date | string;
  completedAt: Date | string | null;
  error?: string | null;
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
};

export type ActionOutcome = { result?: unknown; ticket?: Record<string, unknown> };

/** Sender of replies that workflows send. */
export const AUTOMATION_SENDER = { email: 'automation@deskflow.invalid', name: 'Deskflow automation' };

/**
 * The activities of runGraph. Each opens its own unit of work; an action's effect and its
 * step record commit in one transaction, and a retried action whose step already completed
 * returns the recorded outcome instead of acting twice.
 */
export function createActivities(deps: ActivityDeps) {
  const services = () => createServices(deps.orm.em.fork(), { logger: deps.logger, engine: deps.engine });
  const date = (d: Date | string | null) => (d === null ? null : new Date(d));

  return {
    async beginExecution(executionId: string) {
      return services().executions.markRunning(executionId);
    },

    async recordStep(executionId: string, step: StepInput): Promise<void> {
      await services().executions.recordStep(executionId, { ...step, startedAt: new Date(step.startedAt), completedAt: date(step.completedAt) });
    },

    /** How many executions of earlier ticks of the workflow are still unfinished. */
    async unfinishedEarlierTickRuns(input: { workflowId: string; tickStartedAt: number }): Promise<number> {
      return unfinishedEarlierTickRuns(services().em, input.workflowId, new Date(input.tickStartedAt));
    },

    /** One batch of a scheduled tick: creates and starts the executions of up to 200 matching tickets. */
    async runTickBatch(input: { workflowId: string; tickId: string; cursor: string | null }) {
      const s = services();
      return runTickBatch(s.em, s.executions, { ...input, now: new Date() });
    },

    async finishExecution(executionId: string, status: 'completed' | 'failed' | 'cancelled', error: string | null): Promise<void> {
      await services().executions.finish(executionId, status, error);
    },

    async runAction(input: ActionInput): Promise<ActionOutcome> {
      const s = services();
      const done = await s.executions.findStep(input.executionId, input.nodeId);
      if (done?.status === 'completed') {
        return { result: done.result ?? undefined, ticket: input.ticketId ? ticketContext(await s.tickets.get(input.workspaceId, input.ticketId)) : undefined };
      }
      const actor: Actor = { type: 'workflow', workflowId: input.workflowId, executionId: input.executionId, chain: input.chain };
      const action = input.action;
      try {
        if (action.actionType === 'http_request') {
          const result = await performHttpRequest(action, `${input.executionId}:${input.nodeId}`, deps.http);
          await s.executions.recordStep(input.executionId, completedStep(input, result));
          return { result };
        }
        const ticketId = input.ticketId;
        if (!ticketId) throw new AppError(400, 'no_ticket', `${action.actionType} needs a ticket, and this execution has none.`);
        return await s.em.transactional(async (em) => {
          const tx = createServices(em, { logger: deps.logger });
          if (action.actionType === 'send_reply') {
            await tx.tickets.get(input.workspaceId, ticketId);
            const { message } = await tx.messages.add(
              input.workspaceId,
              ticketId,
              { direction: 'outbound', body: action.body, bodyHtml: action.bodyHtml ?? null, senderEmail: AUTOMATION_SENDER.email, senderName: AUTOMATION_SENDER.name, idempotencyKey: `${input.executionId}:${input.nodeId}` },
              actor,
            );
            await tx.executions.recordStep(input.executionId, completedStep(input, { messageId: message.id }), em);
            return { result: { messageId: message.id }, ticket: ticketContext(await tx.tickets.get(input.workspaceId, ticketId)) };
          }
          const ticket = await tx.tickets.update(input.workspaceId, ticketId, ticketChange(action), actor);
          await tx.executions.recordStep(input.executionId, completedStep(input, undefined), em);
          return { ticket: ticketContext(ticket) };
        });
      } catch (err) {
        // A broken rule will break again on retry: fail the action at once with its reason.
        if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

function completedStep(input: ActionInput, result: unknown) {
  return { nodeId: input.nodeId, status: 'completed' as const, result, startedAt: new Date(input.startedAt), completedAt: new Date() };
}

function ticketChange(action: ActionData): TicketChange {
  switch (action.actionType) {
    case 'assign_ticket': {
      const parsed = assigneeId.safeParse(action.assignTo);
      if (!parsed.success) throw new AppError(400, 'invalid_assignee', `"${action.assignTo}" is not a valid assignee: ${parsed.error.issues[0]?.message}`);
      return { assignedTo: parsed.data };
    }
    case 'set_status':
      return { status: action.status };
    case 'set_priority':
      return { priority: action.priority };
    case 'set_resolution_type':
      return { resolutionType: action.resolutionType };
    case 'add_tag':
      return { addTags: [checkedTag(action.tag)] };
    case 'remove_tag':
      return { removeTags: [checkedTag(action.tag)] };
    default:
      throw new AppError(400, 'unsupported_action', `${action.actionType} does not change a ticket.`);
  }
}

function checkedTag(tag: string): string {
  const trimmed = tag.trim();
  if (trimmed === '' || [...trimmed].length > 100) throw new AppError(400, 'invalid_tag', `"${tag}" is not a valid tag (1-100 characters, not blank).`);
  return trimmed;
}
