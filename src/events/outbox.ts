import type { EntityManager } from '@mikro-orm/postgresql';
import { causeOf, type Actor } from '../actor.ts';
import { sql, type Statement } from '../common/sql.ts';
import { newId } from '../ids.ts';
import type { EventType } from './entity.ts';

/** The channel the relays listen on for new events (src/triggers/wakeups.ts). */
export const OUTBOX_CHANNEL = 'deskflow_outbox';

export type NewEvent = { workspaceId: string; type: EventType; ticketId: string | null; payload: Record<string, unknown>; actor: Actor; at: Date };

/**
 * The insert of the outbox rows of a change (or of changes made in turn), in their order,
 * written with the change itself (writeTogether) so that they commit with it; the relays are
 * woken once it has committed.
 */
export function eventsInsert(events: NewEvent[]): Statement {
  // Ids ascending in the order of the events: readers that order by (txid, created_at, id), as
  // the event feed does, see the events of one change (which share their time) as they were written.
  const ids = events.map(() => newId()).sort();
  return {
    text: `insert into "outbox_events" ("id", "workspace_id", "type", "ticket_id", "payload", "created_at", "attempts") values ${events
      .map((_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, $${i * 6 + 6}, 0)`)
      .join(', ')}`,
    parameters: events.flatMap((event, i) => [ids[i], event.workspaceId, event.type, event.ticketId, JSON.stringify({ ...event.payload, cause: causeOf(event.actor) }), event.at]),
    wakes: OUTBOX_CHANNEL,
  };
}

/**
 * Deletes up to `limit` delivered events recorded more than `retentionDays` ago, oldest first;
 * returns how many. Events the loop guard stopped stay: GET /metrics counts them.
 */
export async function purgeDeliveredEvents(em: EntityManager, retentionDays: number, limit: number, workspaceIds?: string[]): Promise<number> {
  if (workspaceIds?.length === 0) return 0;
  const rows = await sql<{ id: string }>(
    em,
    `delete from "outbox_events" where "id" = any(array(
       select "id" from "outbox_events"
        where "delivered_at" is not null and "created_at" < now() - make_interval(days => $1)
          and ("last_error" is null or "last_error" not like 'loop guard:%')
          ${workspaceIds ? 'and "workspace_id" = any($3)' : ''}
        order by "created_at" limit $2))
     returning "id"`,
    workspaceIds ? [retentionDays, limit, workspaceIds] : [retentionDays, limit],
  );
  return rows.length;
}
