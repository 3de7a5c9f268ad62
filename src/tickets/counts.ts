import { defineEntity, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Statement } from '../common/sql.ts';
import { PRIORITIES, SOURCES, STATUSES, type TicketPriority, type TicketSource, type TicketStatus } from './values.ts';

/** Who a ticket is assigned to, as the counters tell it apart: no one, the AI agent, or a member. */
export const ASSIGNEE_KINDS = ['none', 'ai', 'member'] as const;
export type AssigneeKind = (typeof ASSIGNEE_KINDS)[number];

/**
 * How many tickets a workspace has per status, priority, source and kind of assignee, kept by
 * triggers on `tickets` in the same transaction as every insert, change of those fields and
 * delete (see the ticket_counts migrations), in shards so that concurrent writers do not queue
 * on one row. The list's `total` sums them whenever its filters are among these fields.
 */
const TicketCountSchema = defineEntity({
  name: 'TicketCount',
  tableName: 'ticket_counts',
  properties: {
    workspaceId: p.uuid().primary(),
    status: p.enum(STATUSES).primary(),
    priority: p.enum(PRIORITIES).primary().default('medium'),
    source: p.enum(SOURCES).primary().default('api'),
    assignee: p.enum(ASSIGNEE_KINDS).primary().default('none'),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});
export class TicketCount extends TicketCountSchema.class {}
TicketCountSchema.setClass(TicketCount);

/** The filters the counters answer: each given one holds (any of its values). */
export type CountedFilter = { status?: TicketStatus; priorities?: TicketPriority[]; sources?: TicketSource[]; assignees?: AssigneeKind[] };

/** The number of tickets of the workspace that pass `filter`. */
export async function countTickets(em: EntityManager, workspaceId: string, filter: CountedFilter = {}): Promise<number> {
  const parameters: unknown[] = [workspaceId];
  const where = ['"workspace_id" = $1'];
  const add = (column: string, value: unknown, op: '=' | '= any') => {
    parameters.push(value);
    where.push(op === '=' ? `"${column}" = $${parameters.length}` : `"${column}" = any($${parameters.length}::text[])`);
  };
  if (filter.status) add('status', filter.status, '=');
  if (filter.priorities) add('priority', filter.priorities, '= any');
  if (filter.sources) add('source', filter.sources, '= any');
  if (filter.assignees) add('assignee', filter.assignees, '= any');
  const [row] = await sql<{ total: string | null }>(em, `select sum("count") as "total" from "ticket_counts" where ${where.join(' and ')}`, parameters);
  return Number(row?.total ?? 0);
}

/**
 * How many tickets of a workspace carry each tag, in shards as ticket_counts. Tags change only
 * through TicketService's one write of a ticket (store.ts, ticketUpdate), which keeps these in
 * the same statement (tagCountsChange): a ticket is created without tags, so creating one pays
 * nothing for them.
 */
const TicketTagCountSchema = defineEntity({
  name: 'TicketTagCount',
  tableName: 'ticket_tag_counts',
  properties: {
    workspaceId: p.uuid().primary(),
    tag: p.string().length(100).primary(),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});
export class TicketTagCount extends TicketTagCountSchema.class {}
TicketTagCountSchema.setClass(TicketTagCount);

/** What a ticket's change of tags from `before` to `after` does to the tag counters; null when the tags are the same. */
export function tagCountsChange(workspaceId: string, before: readonly string[], after: readonly string[]): Statement | null {
  const deltas = new Map<string, number>();
  for (const tag of after) if (!before.includes(tag)) deltas.set(tag, 1);
  for (const tag of before) if (!after.includes(tag)) deltas.set(tag, -1);
  if (deltas.size === 0) return null;
  // In tag order, so that writers touching the same counters take their rows in the same order.
  const tags = [...deltas.keys()].sort();
  return {
    text: `insert into "ticket_tag_counts" as c ("workspace_id", "tag", "shard", "count")
           select $1, d."tag", pg_backend_pid() % 16, d."delta" from unnest($2::text[], $3::int[]) as d("tag", "delta") order by d."tag"
           on conflict ("workspace_id", "tag", "shard") do update set "count" = c."count" + excluded."count"`,
    parameters: [workspaceId, tags, tags.map((t) => deltas.get(t)!)],
  };
}

/** The number of tickets of the workspace tagged `tag`. */
export async function countTagged(em: EntityManager, workspaceId: string, tag: string): Promise<number> {
  const [row] = await sql<{ total: string | null }>(em, `select sum("count") as "total" from "ticket_tag_counts" where "workspace_id" = $1 and "tag" = $2`, [workspaceId, tag]);
  return Number(row?.total ?? 0);
}
