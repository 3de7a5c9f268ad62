import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { EventCause } from '../actor.ts';
import { pgTimestamp, sql } from '../common/sql.ts';
import type { WorkflowEngine } from '../executions/engine.ts';
import type { Execution } from '../executions/entity.ts';
import { TRIGGER_TYPES, type RunContext, type TriggerType } from '../graph/index.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Workflow } from '../workflows/entity.ts';
import { ExecutionDispatcher, type NewExecution } from '../executions/dispatcher.ts';
import type { EventType } from '../events/entity.ts';
import { foldEvents, SLA_EVENT_TYPES } from '../sla/clocks.ts';
import { rebuildSearchDocuments, TEXT_EVENTS } from '../tickets/search-index.ts';
import { loopGuard } from './loop-guard.ts';
import { recordReplySignals } from './reply-signals.ts';
import { recordOwnerWakeups } from '../ai/wakeups.ts';

/** What the relay has done since the process started: event delivery, run starts, reply signals (tests and logs read it). */
export type RelayMetrics = {
  eventsDelivered: number;
  executionsCreated: number;
  /** Customer replies recorded for runs that wait (ReplySignals signals them). */
  repliesRecorded: number;
  loopGuardSkips: number;
  depthLimitStops: number;
  dispatchFailures: number;
  /** Tickets whose service-level timers must be signalled (their fire instants moved); the relay's next catch-up signals them. */
  slaSignalsDue: number;
  /** Wake-ups and stops recorded for the AI owner's runs (OwnerWakeups hands them over). */
  ownerWakeupsRecorded: number;
};

export const newRelayMetrics = (): RelayMetrics => ({ eventsDelivered: 0, executionsCreated: 0, repliesRecorded: 0, loopGuardSkips: 0, depthLimitStops: 0, dispatchFailures: 0, slaSignalsDue: 0, ownerWakeupsRecorded: 0 });

/** An event as delivery claims it; `payload` only where the event has work to do (`heard`). */
export type ClaimedEvent = {
  id: string;
  workspace: string;
  type: EventType;
  ticketId: string | null;
  createdAt: Date;
  payload: Record<string, unknown> | null;
  /** An active workflow of its workspace listens to its type, or it is a customer reply (runs may wait for it), or the clocks read it. */
  heard: boolean;
  /** Its workspace has an active SLA policy and the clocks read events of its type (src/sla/clocks.ts). */
  clocked: boolean;
  /** Left for a later batch: an older event of its ticket is still being delivered by another relay (the clocks need them in order). */
  later: boolean;
};

type ClaimedRow = { id: string; workspace_id: string; type: EventType; ticket_id: string | null; created_at: string | Date; payload: Record<string, unknown> | null; listened: boolean; clocked: boolean; later: boolean };

/**
 * Delivers outbox events to what follows them. In one transaction it claims a batch of
 * undelivered events (FOR UPDATE SKIP LOCKED, so several relays share the work; an event that
 * moves SLA clocks waits while an older event of its ticket is another relay's) and hands them to:
 * - the search documents of tickets whose text changed (src/tickets/search-index.ts);
 * - the SLA clocks of governed tickets (src/sla/clocks.ts; SlaTimers signals their timers);
 * - the runs they trigger: one pending execution per matching active workflow, unless the loop
 *   guard stops it, and customer replies recorded for the ticket's open runs (ReplySignals
 *   signals them);
 * - the AI owner's wake-ups (src/ai/wakeups.ts; OwnerWakeups starts them).
 * All of it commits with the events marked delivered; after the commit it starts the runs.
 * Events nothing listens to (most of those an automation's own actions write) are marked
 * delivered by the claim itself.
 */
export class EventDelivery {
  readonly metrics: RelayMetrics;
  private readonly orm: MikroORM;
  private readonly engine: WorkflowEngine;
  private readonly logger: Logger;
  private readonly startsBlocked: () => string | null;

  constructor(deps: { orm: MikroORM; engine: WorkflowEngine; logger: Logger; metrics?: RelayMetrics; startsBlocked?: () => string | null }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
    this.startsBlocked = deps.startsBlocked ?? (() => null);
    this.metrics = deps.metrics ?? newRelayMetrics();
  }

  /** Delivers up to `limit` of the oldest undelivered events (of the given workspaces, or all); returns how many it claimed. */
  async deliverBatch(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const dispatcher = new ExecutionDispatcher(this.orm.em.fork(), { engine: this.engine, logger: this.logger });
    const { claimed, created, replies, slaSignals, wakeups } = await this.orm.em.fork().transactional(async (em) => {
      const now = new Date();
      const events = (await claim(em, limit, now, workspaceIds)).filter((e) => !e.later);
      await rebuildSearchDocuments(em, textChanged(events));
      const heard = events.filter((e) => e.heard);
      if (heard.length === 0) return { claimed: events.length, created: [] as Execution[], replies: 0, slaSignals: 0, wakeups: 0 };
      // The clocks of governed tickets follow their events, in this transaction (docs/sla.md, "How the clocks are kept").
      const slaSignals = await foldEvents(em, heard.filter((e) => e.clocked), now);
      const workflows = await em.find(Workflow, {
        workspace: { $in: [...new Set(heard.map((e) => e.workspace))] },
        triggerType: { $in: [...new Set<string>(heard.map((e) => e.type))].filter((t): t is TriggerType => (TRIGGER_TYPES as readonly string[]).includes(t)) },
        isActive: true,
        deletedAt: null,
      });
      const inputs: NewExecution[] = [];
      const notes: Array<string | null> = [];
      let replies = 0;
      for (const event of heard) {
        // Executions created in this batch begin after the reply: it is not theirs to wait for.
        if (event.type === 'message_received') replies += await recordReplySignals(em, event);
        const { executions, note } = this.executionsFor(event, workflows);
        inputs.push(...executions);
        notes.push(note);
      }
      await sql(
        em,
        `update "outbox_events" o set "delivered_at" = $1, "attempts" = o."attempts" + 1, "last_error" = d."note"
           from unnest($2::uuid[], $3::text[]) as d("id", "note") where o."id" = d."id"`,
        [now, heard.map((e) => e.id), notes],
      );
      const wakeups = await recordOwnerWakeups(em, heard);
      return { claimed: events.length, created: await dispatcher.create(em, inputs, now), replies, slaSignals, wakeups };
    });
    this.metrics.eventsDelivered += claimed;
    this.metrics.ownerWakeupsRecorded += wakeups;
    this.metrics.repliesRecorded += replies;
    this.metrics.slaSignalsDue += slaSignals;
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

  /**
   * One new execution per active workflow of the event's workspace and type, unless the loop
   * guard stops it; what it stopped is the event's note (its last_error).
   */
  private executionsFor(event: ClaimedEvent, workflows: Workflow[]): { executions: NewExecution[]; note: string | null } {
    const cause = event.payload?.cause as EventCause;
    const executions: NewExecution[] = [];
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
      executions.push({ workflow, triggeredBy: workflow.triggerType, ticketId: event.ticketId ?? null, eventId: event.id, chain: cause?.chain ?? [], context: contextOf(event) });
    }
    return { executions, note: notes.length ? `loop guard: ${notes.join('; ')}` : null };
  }
}

/**
 * Claims the oldest undelivered events in one statement: locks them (skipping those another
 * relay holds), marks delivered at `now` those nothing listens to, and returns them all, with
 * the payloads of the others. The clocks need a ticket's events in order: an event the clocks
 * read whose ticket has an older event still undelivered that another relay holds is left for a
 * later batch (`later`: it stays undelivered; that relay's commit wakes the relays again).
 */
async function claim(em: EntityManager, limit: number, now: Date, workspaceIds?: string[]): Promise<ClaimedEvent[]> {
  const rows = await sql<ClaimedRow>(
    em,
    `with "claimed" as (
       select e."id", e."workspace_id", e."type", e."ticket_id", e."created_at",
              e."type" = 'message_received'
              -- a ticket given to or taken from the AI owner (src/ai/wakeups.ts)
              or (e."type" = 'ticket_updated' and e."payload"->'changes' ? 'assignedTo')
              or exists (
                select 1 from "workflows" w
                 where w."workspace_id" = e."workspace_id" and w."trigger_type" = e."type" and w."is_active" and w."deleted_at" is null) as "listened",
              e."ticket_id" is not null and e."type" = any($3) and exists (
                select 1 from "sla_policies" p where p."workspace_id" = e."workspace_id" and p."is_active" and p."deleted_at" is null) as "clocked"
         from "outbox_events" e
        where e."delivered_at" is null${workspaceIds ? ' and e."workspace_id" = any($4)' : ''}
        order by e."created_at", e."id"
        limit $1
          for update of e skip locked),
     "ready" as (
       select c.*, c."clocked" and exists (
                select 1 from "outbox_events" o
                 where o."ticket_id" = c."ticket_id" and o."delivered_at" is null and (o."created_at", o."id") < (c."created_at", c."id")
                   and not exists (select 1 from "claimed" k where k."id" = o."id")) as "later"
         from "claimed" c),
     "unheard" as (
       update "outbox_events" o set "delivered_at" = $2, "attempts" = o."attempts" + 1, "last_error" = null
         from "ready" r where o."id" = r."id" and not r."listened" and not r."clocked")
     select r."id", r."workspace_id", r."type", r."ticket_id", r."created_at", r."listened", r."clocked", r."later",
            case when (r."listened" or r."clocked") and not r."later" then o."payload" end as "payload"
       from "ready" r join "outbox_events" o on o."id" = r."id"
      order by r."created_at", r."id"`,
    workspaceIds ? [limit, now, SLA_EVENT_TYPES, workspaceIds] : [limit, now, SLA_EVENT_TYPES],
  );
  return rows.map((r) => ({ id: r.id, workspace: r.workspace_id, type: r.type, ticketId: r.ticket_id, createdAt: pgTimestamp(r.created_at), payload: r.payload, heard: r.listened || r.clocked, clocked: r.clocked, later: r.later }));
}

/** The tickets whose text an event changed (a new ticket, a message): their search documents are rebuilt (src/tickets/search-index.ts). */
function textChanged(events: ClaimedEvent[]): string[] {
  return [...new Set(events.flatMap((e) => (e.ticketId && TEXT_EVENTS.includes(e.type) ? [e.ticketId] : [])))];
}

/** What the run's conditions and templates see for an event (also when a backtest replays it). */
export function contextOf(event: { payload: Record<string, unknown> | null }): RunContext {
  const { ticket, message, changes, tag, sla } = event.payload ?? {};
  return {
    ...(ticket ? { ticket } : {}),
    ...(message ? { message } : {}),
    ...(changes ? { changes } : {}),
    ...(tag !== undefined ? { tag } : {}),
    ...(sla ? { sla } : {}),
  } as RunContext;
}
