import { LockMode } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventCause } from '../actor.ts';
import { OutboxEvent } from '../events/entity.ts';
import type { WorkflowEngine } from '../executions/engine.ts';
import type { Execution } from '../executions/entity.ts';
import type { RunContext, TriggerType } from '../graph/index.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Workflow } from '../workflows/entity.ts';
import { ExecutionDispatcher, type NewExecution } from './dispatcher.ts';
import { loopGuard } from './loop-guard.ts';
import { recordReplySignals } from './reply-signals.ts';

/** What delivery has done since the process started (tests and logs read it). */
export type DeliveryMetrics = {
  eventsDelivered: number;
  executionsCreated: number;
  loopGuardSkips: number;
  depthLimitStops: number;
  dispatchFailures: number;
};

export const newDeliveryMetrics = (): DeliveryMetrics => ({ eventsDelivered: 0, executionsCreated: 0, loopGuardSkips: 0, depthLimitStops: 0, dispatchFailures: 0 });

/**
 * Delivers outbox events to the workflows they trigger. In one transaction it claims a batch
 * of undelivered events (FOR UPDATE SKIP LOCKED, so several relays share the work), creates
 * one pending execution per matching active workflow (unless the loop guard stops it) and
 * marks the events delivered, and records customer replies for the ticket's open runs
 * (delivered by ReplyDelivery); after the commit it starts the runs.
 */
export class EventDelivery {
  readonly metrics: DeliveryMetrics;
  private readonly orm: MikroORM;
  private readonly engine: WorkflowEngine;
  private readonly logger: Logger;
  private readonly startsBlocked: () => string | null;

  constructor(deps: { orm: MikroORM; engine: WorkflowEngine; logger: Logger; metrics?: DeliveryMetrics; startsBlocked?: () => string | null }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
    this.startsBlocked = deps.startsBlocked ?? (() => null);
    this.metrics = deps.metrics ?? newDeliveryMetrics();
  }

  /** Delivers up to `limit` of the oldest undelivered events (of the given workspaces, or all); returns how many it claimed. */
  async deliverBatch(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const dispatcher = new ExecutionDispatcher(this.orm.em.fork(), { engine: this.engine, logger: this.logger });
    const { claimed, created } = await this.orm.em.fork().transactional(async (em) => {
      const events = await em.find(OutboxEvent, { deliveredAt: null, ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) }, {
        orderBy: { createdAt: 'asc', id: 'asc' },
        limit,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
      });
      if (events.length === 0) return { claimed: 0, created: [] as Execution[] };
      const workflows = await em.find(Workflow, {
        workspace: { $in: [...new Set(events.map((e) => e.workspace))] },
        triggerType: { $in: [...new Set(events.map((e) => e.type as TriggerType))] },
        isActive: true,
        deletedAt: null,
      });
      const now = new Date();
      const inputs: NewExecution[] = [];
      for (const event of events) {
        // Executions created in this batch begin after the reply: it is not theirs to wait for.
        if (event.type === 'message_received') await recordReplySignals(em, event);
        inputs.push(...this.executionsFor(event, workflows));
        event.deliveredAt = now;
        event.attempts += 1;
      }
      return { claimed: events.length, created: await dispatcher.create(em, inputs, now) };
    });
    this.metrics.eventsDelivered += claimed;
    this.metrics.executionsCreated += created.length;
    // While the engine would refuse every start (said once where that is known), they wait as pending.
    if (created.length > 0 && this.startsBlocked() === null) {
      await dispatcher.start(created).catch((err) => {
        this.metrics.dispatchFailures += 1;
        this.logger.warn('engine unavailable; executions stay pending until it is back', errorFields(err));
      });
    }
    return claimed;
  }

  /** One new execution per active workflow of the event's workspace and type, unless the loop guard stops it (noted on the event). */
  private executionsFor(event: OutboxEvent, workflows: Workflow[]): NewExecution[] {
    const cause = event.payload.cause as EventCause;
    const inputs: NewExecution[] = [];
    const notes: string[] = [];
    for (const workflow of workflows) {
      if (workflow.workspace !== event.workspace || workflow.triggerType !== event.type) continue;
      const stop = loopGuard(cause, workflow.id);
      if (stop) {
        notes.push(`${workflow.id}: ${stop}`);
        this.metrics[stop === 'depth limit reached' ? 'depthLimitStops' : 'loopGuardSkips'] += 1;
        this.logger.warn('loop guard: workflow not started', { eventId: event.id, workflowId: workflow.id, ticketId: event.ticketId, reason: stop });
        continue;
      }
      inputs.push({ workflow, triggeredBy: event.type, ticketId: event.ticketId ?? null, eventId: event.id, chain: cause?.chain ?? [], context: contextOf(event) });
    }
    event.lastError = notes.length ? `loop guard: ${notes.join('; ')}` : null;
    return inputs;
  }
}

/** What the run's conditions and templates see for an event (also when a backtest replays it). */
export function contextOf(event: Pick<OutboxEvent, 'payload'>): RunContext {
  const { ticket, message, changes, tag } = event.payload as Record<string, unknown>;
  return {
    ...(ticket ? { ticket } : {}),
    ...(message ? { message } : {}),
    ...(changes ? { changes } : {}),
    ...(tag !== undefined ? { tag } : {}),
  } as RunContext;
}
