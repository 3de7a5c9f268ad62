import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowEngine } from '../executions/engine.ts';
import { Execution } from '../executions/entity.ts';
import { retryUntilAcknowledged } from '../common/retry-until-acknowledged.ts';
import { errorFields, type Logger } from '../logger.ts';
import { ReplySignal } from './entity.ts';

/*
 * A customer reply's way to a run waiting for it (wait_for_reply), end to end:
 *   1. MessageService.add (src/messages/service.ts; the mail importer calls it too) writes the
 *      message and its message_received outbox event in one transaction.
 *   2. The relay's EventDelivery (event-delivery.ts) claims the event and, in the transaction
 *      that marks it delivered, records a reply signal (reply_signals) per open execution of the
 *      ticket: recordReplySignals below.
 *   3. ReplySignals.signalPending, on the relay's passes, hands each one to Temporal
 *      (WorkflowEngine.signalCustomerReply, temporal/client.ts) until acknowledged
 *      (src/common/retry-until-acknowledged.ts).
 *   4. runAutomation's customerReplied handler (temporal/workflows/) keeps it by message id.
 */

/** A message_received event, as far as its reply signals need it. */
type ReplyEvent = { ticketId: string | null; payload: Record<string, unknown> | null; createdAt: Date };

/**
 * Records a customer reply (a message_received event) for every open execution of its ticket,
 * in the unit of work of `em`: the transaction that marks the event delivered. Returns how many.
 */
export async function recordReplySignals(em: EntityManager, event: ReplyEvent): Promise<number> {
  const message = event.payload?.message as { id?: string; createdAt?: string } | undefined;
  if (!event.ticketId || !message?.id) return 0;
  const open = await em.find(Execution, { ticketId: event.ticketId, status: { $in: ['pending', 'running'] } }, { fields: ['temporalWorkflowId', 'workspace'] });
  for (const execution of open) {
    em.create(ReplySignal, {
      execution: execution.id,
      messageId: message.id,
      workspace: execution.workspace,
      messageAt: message.createdAt ? new Date(message.createdAt) : event.createdAt,
      temporalWorkflowId: execution.temporalWorkflowId,
    });
  }
  return open.length;
}

/**
 * Signals recorded replies to their runs, retried on every relay pass until Temporal acknowledges
 * each one (retryUntilAcknowledged). A run that has ended meanwhile needs none and counts as delivered; a run receives
 * the same reply at most once that matters (it keeps replies by message id).
 */
export class ReplySignals {
  private readonly orm: MikroORM;
  private readonly engine: WorkflowEngine;
  private readonly logger: Logger;

  constructor(deps: { orm: MikroORM; engine: WorkflowEngine; logger: Logger }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
  }

  /** Signals up to `limit` waiting replies (of the given workspaces, or all); returns how many it claimed. */
  async signalPending(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const pass = await retryUntilAcknowledged<ReplySignal>(
      this.orm.em.fork(),
      limit,
      {
        what: 'reply signals',
        claim: (em, limit) =>
          em.find(ReplySignal, { deliveredAt: null, ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) }, {
            orderBy: { createdAt: 'asc' },
            limit,
            lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked: relays share the work */,
          }),
        handOff: async (signal) => {
          signal.attempts += 1;
          await this.engine.signalCustomerReply(signal.temporalWorkflowId, { messageId: signal.messageId, at: signal.messageAt.toISOString() });
        },
        acknowledge: async (_em, signals) => {
          const now = new Date();
          for (const signal of signals) Object.assign(signal, { deliveredAt: now, lastError: null });
        },
        noteFailure: async (_em, failed) => {
          for (const { row, error } of failed) row.lastError = errorFields(error).error;
        },
        describe: (signal) => ({ temporalWorkflowId: signal.temporalWorkflowId }),
      },
      this.logger,
    );
    return pass.claimed;
  }
}
