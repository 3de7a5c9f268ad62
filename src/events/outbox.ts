import type { EntityManager } from '@mikro-orm/postgresql';
import { causeOf, type Actor } from '../actor.ts';
import { sql } from '../common/sql.ts';
import { newId } from '../ids.ts';
import type { EventType } from './entity.ts';

/**
 * Writes an outbox row in the transaction of `em`: it commits with the change it describes, and
 * its insert trigger wakes the relays. One statement, written out: every change writes one.
 */
export async function recordEvent(
  em: EntityManager,
  event: { workspaceId: string; type: EventType; ticketId: string | null; payload: Record<string, unknown>; actor: Actor; at: Date },
): Promise<void> {
  await sql(em, 'insert into "outbox_events" ("id", "workspace_id", "type", "ticket_id", "payload", "created_at", "attempts") values ($1, $2, $3, $4, $5, $6, 0)', [
    newId(),
    event.workspaceId,
    event.type,
    event.ticketId,
    JSON.stringify({ ...event.payload, cause: causeOf(event.actor) }),
    event.at,
  ]);
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
