import { defineEntity, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { STATUSES, type TicketStatus } from './values.ts';

/**
 * How many tickets a workspace has per status, kept by triggers on `tickets` in the same
 * transaction as every insert, status change and delete (see the ticket_counts migration), in
 * shards so that concurrent writers do not queue on one row. The list's `total` sums them.
 */
const TicketCountSchema = defineEntity({
  name: 'TicketCount',
  tableName: 'ticket_counts',
  properties: {
    workspaceId: p.uuid().primary(),
    status: p.enum(STATUSES).primary(),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});
export class TicketCount extends TicketCountSchema.class {}
TicketCountSchema.setClass(TicketCount);

/** The number of tickets of the workspace (of one status, when given). */
export async function countTickets(em: EntityManager, workspaceId: string, status?: TicketStatus): Promise<number> {
  const [row] = await sql<{ total: string | null }>(
    em,
    `select sum("count") as "total" from "ticket_counts" where "workspace_id" = $1${status ? ' and "status" = $2' : ''}`,
    status ? [workspaceId, status] : [workspaceId],
  );
  return Number(row?.total ?? 0);
}
