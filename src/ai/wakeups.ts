import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { retryUntilAcknowledged } from '../common/retry-until-acknowledged.ts';
import { sql } from '../common/sql.ts';
import { newId } from '../ids.ts';
import { errorFields, type Logger } from '../logger.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import type { AiOwnerEngine } from './engine.ts';
import { AiWakeup } from './entity.ts';

/*
 * How a ticket's owner run is woken, end to end:
 *   1. A change commits with its event: a customer message (message_received) on a ticket
 *      assigned to `ai`, or the ticket assigned to or away from `ai` (ticket_updated).
 *   2. The relay's EventDelivery claims the event and, in the transaction that marks it
 *      delivered, records a wake-up (or a stop) here: recordOwnerWakeups. Turning the owner on
 *      records one per ticket waiting for it: takeUpWaitingTickets.
 *   3. OwnerWakeups.signalPending, on the relay's passes, hands each to Temporal (signal with
 *      start of the ticket's run) until acknowledged (src/common/retry-until-acknowledged.ts).
 *   4. The run (temporal/workflows/ai-owner.ts) looks at the ticket afresh each time it wakes.
 */

/** An event as delivery claimed it, as far as the owner needs it. */
type DeliveredEvent = { workspace: string; type: string; ticketId: string | null; payload: Record<string, unknown> | null };

type Wake = { workspaceId: string; ticketId: string; kind: 'wake' | 'stop'; reason: string };

/**
 * What an event asks of the owner's run of its ticket, if anything. A `message_added` asks
 * nothing: on a ticket the owner holds it is a person's reply (an agent's outbound message), the
 * owner's own reply, or mail from someone other than the customer. After a person's reply no
 * customer message waits, which the run's act checks under the ticket's lock (a run in the
 * middle of a model call sends nothing); it is no stop either, since the ticket is still the
 * owner's and a stop would also end a run just woken for the customer's next message.
 */
function wakeOf(event: DeliveredEvent): Wake | null {
  if (!event.ticketId || !event.payload) return null;
  const ticket = event.payload.ticket as { assignedTo?: string | null } | undefined;
  const base = { workspaceId: event.workspace, ticketId: event.ticketId };
  if (event.type === 'message_received' && ticket?.assignedTo === AI_ASSIGNEE) return { ...base, kind: 'wake', reason: 'the customer wrote' };
  const assigned = (event.payload.changes as { assignedTo?: { from: unknown; to: unknown } } | undefined)?.assignedTo;
  if (event.type === 'ticket_updated' && assigned) {
    if (assigned.to === AI_ASSIGNEE) return { ...base, kind: 'wake', reason: 'assigned to ai' };
    if (assigned.from === AI_ASSIGNEE) return { ...base, kind: 'stop', reason: assigned.to ? `assigned to ${String(assigned.to)}` : 'unassigned' };
  }
  return null;
}

/**
 * Records the wake-ups and stops that delivered events ask for, in the unit of work of `em` (the
 * transaction that marks them delivered), for workspaces whose owner is on. Returns how many.
 */
export async function recordOwnerWakeups(em: EntityManager, events: DeliveredEvent[]): Promise<number> {
  const wakes = events.map(wakeOf).filter((w): w is Wake => w !== null);
  if (wakes.length === 0) return 0;
  const on = await sql<{ workspace_id: string }>(em, 'select "workspace_id" from "ai_settings" where "enabled" and "workspace_id" = any($1::uuid[])', [[...new Set(wakes.map((w) => w.workspaceId))]]);
  const enabled = new Set(on.map((r) => r.workspace_id));
  const recorded = wakes.filter((w) => enabled.has(w.workspaceId));
  if (recorded.length > 0) await insertWakeups(em, recorded);
  return recorded.length;
}

async function insertWakeups(em: EntityManager, wakes: Wake[]): Promise<void> {
  await sql(
    em,
    `insert into "ai_wakeups" ("id", "workspace_id", "ticket_id", "kind", "reason", "created_at")
     select * , $6::timestamptz from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[])`,
    [wakes.map(() => newId()), wakes.map((w) => w.workspaceId), wakes.map((w) => w.ticketId), wakes.map((w) => w.kind), wakes.map((w) => w.reason), new Date()],
  );
}

/**
 * The owner was turned on: a wake-up for every ticket of the workspace already assigned to it,
 * not solved or closed, whose customer's newest message no outbound message followed. One
 * statement, in the transaction that turned it on.
 */
export async function takeUpWaitingTickets(em: EntityManager, workspaceId: string): Promise<void> {
  await sql(
    em,
    `insert into "ai_wakeups" ("id", "workspace_id", "ticket_id", "kind", "reason", "created_at")
     select gen_random_uuid(), t."workspace_id", t."id", 'wake', 'the owner was turned on', $2
       from "tickets" t
      where t."workspace_id" = $1 and t."assigned_to" = $3 and t."status" not in ('solved', 'closed')
        and exists (select 1 from "messages" c
                     where c."ticket_id" = t."id" and c."direction" = 'inbound' and lower(trim(c."sender_email")) = lower(trim(t."customer_email"))
                       and not exists (select 1 from "messages" o where o."ticket_id" = t."id" and o."direction" = 'outbound' and o."seq" > c."seq"))`,
    [workspaceId, new Date(), AI_ASSIGNEE],
  );
}

/**
 * Hands recorded wake-ups and stops to Temporal on every relay pass until it acknowledges each
 * (retryUntilAcknowledged): a wake signals the ticket's run, starting it when none runs.
 */
export class OwnerWakeups {
  private readonly orm: MikroORM;
  private readonly engine: AiOwnerEngine;
  private readonly logger: Logger;

  constructor(deps: { orm: MikroORM; engine: AiOwnerEngine; logger: Logger }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
  }

  /** Hands over up to `limit` recorded wake-ups (of the given workspaces, or all); returns how many it claimed. */
  async signalPending(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const pass = await retryUntilAcknowledged<AiWakeup>(
      this.orm.em.fork(),
      limit,
      {
        what: 'AI owner wake-ups',
        claim: (em, limit) =>
          em.find(AiWakeup, { deliveredAt: null, ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) }, {
            orderBy: { createdAt: 'asc' },
            limit,
            lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked: relays share the work */,
          }),
        handOff: async (w) => {
          w.attempts += 1;
          if (w.kind === 'wake') await this.engine.wakeAiOwner({ workspaceId: w.workspace, ticketId: w.ticketId, reason: w.reason });
          else await this.engine.stopAiOwner(w.ticketId, w.reason);
        },
        acknowledge: async (_em, rows) => {
          const now = new Date();
          for (const w of rows) Object.assign(w, { deliveredAt: now, lastError: null });
        },
        noteFailure: async (_em, failed) => {
          for (const { row, error } of failed) row.lastError = errorFields(error).error;
        },
        describe: (w) => ({ ticketId: w.ticketId, kind: w.kind }),
      },
      this.logger,
    );
    return pass.claimed;
  }
}

/** Deletes up to `limit` wake-ups Temporal took more than `retentionDays` ago (kept like delivered events); returns how many. */
export async function purgeDeliveredWakeups(em: EntityManager, retentionDays: number, limit: number, workspaceIds?: string[]): Promise<number> {
  if (workspaceIds?.length === 0) return 0;
  const rows = await sql<{ id: string }>(
    em,
    `delete from "ai_wakeups" where "id" = any(array(
       select "id" from "ai_wakeups"
        where "delivered_at" is not null and "delivered_at" < now() - make_interval(days => $1)
          ${workspaceIds ? 'and "workspace_id" = any($3)' : ''}
        limit $2))
     returning "id"`,
    workspaceIds ? [retentionDays, limit, workspaceIds] : [retentionDays, limit],
  );
  return rows.length;
}
