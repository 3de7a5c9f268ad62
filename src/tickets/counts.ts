import { defineEntity, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Statement } from '../common/sql.ts';
import { PRIORITIES, SOURCES, STATUSES, type TicketPriority, type TicketSource, type TicketStatus } from './values.ts';

/** Who a ticket is assigned to, as the counters tell it apart: no one, the AI agent, or a member. */
export const ASSIGNEE_KINDS = ['none', 'ai', 'member'] as const;
export type AssigneeKind = (typeof ASSIGNEE_KINDS)[number];

/**
 * How many tickets a workspace has per status, kept by triggers on `tickets` in the same
 * transaction as every insert, status change and delete (see the ticket_counts migration), in
 * shards so that concurrent writers do not queue on one row. The total of the plain list and of
 * the status-only list sums them: at most 5 statuses × 16 shards.
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

/**
 * How many tickets a workspace has per status, priority, source and kind of assignee (up to 180
 * combinations), kept by the same trigger calls as ticket_counts, right after them (see the
 * ticket_list_filters migration), in shards as those. The total of a list filtered by priority,
 * source or kind of assignee sums them. The relay folds the shards into shard 0 now and then
 * (foldFilterCounts), so that a workspace has about one row per combination in use, not 16.
 */
const TicketFilterCountSchema = defineEntity({
  name: 'TicketFilterCount',
  tableName: 'ticket_filter_counts',
  properties: {
    workspaceId: p.uuid().primary(),
    status: p.enum(STATUSES).primary(),
    priority: p.enum(PRIORITIES).primary(),
    source: p.enum(SOURCES).primary(),
    assignee: p.enum(ASSIGNEE_KINDS).primary(),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});
export class TicketFilterCount extends TicketFilterCountSchema.class {}
TicketFilterCountSchema.setClass(TicketFilterCount);

/** The filters the counters answer: each given one holds (any of its values). */
export type CountedFilter = { status?: TicketStatus; priorities?: TicketPriority[]; sources?: TicketSource[]; assignees?: AssigneeKind[] };

/** The number of tickets of the workspace that pass `filter`: from ticket_counts by status alone, else from ticket_filter_counts. */
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
  const table = filter.priorities || filter.sources || filter.assignees ? 'ticket_filter_counts' : 'ticket_counts';
  const [row] = await sql<{ total: string | null }>(em, `select sum("count") as "total" from "${table}" where ${where.join(' and ')}`, parameters);
  return Number(row?.total ?? 0);
}

/**
 * Folds up to `limit` rows of ticket_filter_counts' shards 1-15 into shard 0 and drops up to
 * `limit` rows that count 0 (of the given workspaces, or all); returns how many rows it took
 * away. Run by the relay's periodic purge (src/triggers/relay.ts). Each statement is atomic and
 * skips rows a writer holds (they are folded next time), so totals stay exact while tickets are
 * written: a writer's upsert that meets a row being taken away waits and inserts it anew.
 */
export async function foldFilterCounts(em: EntityManager, limit: number, workspaceIds?: string[]): Promise<number> {
  if (workspaceIds?.length === 0) return 0;
  const scope = workspaceIds ? ' and "workspace_id" = any($2::uuid[])' : '';
  const parameters = workspaceIds ? [limit, workspaceIds] : [limit];
  const KEY = '"workspace_id", "status", "priority", "source", "assignee"';
  const same = (a: string, b: string) => ['workspace_id', 'status', 'priority', 'source', 'assignee', 'shard'].map((c) => `${a}."${c}" = ${b}."${c}"`).join(' and ');
  const [moved] = await sql<{ n: string }>(
    em,
    `with "moved" as (
       delete from "ticket_filter_counts" t
        using (select ${KEY}, "shard" from "ticket_filter_counts" where "shard" <> 0${scope} limit $1 for update skip locked) s
        where ${same('t', 's')}
       returning t.*),
     "added" as (
       insert into "ticket_filter_counts" as c (${KEY}, "shard", "count")
       select ${KEY}, 0, sum("count") from "moved" group by ${KEY} order by ${KEY}
       on conflict (${KEY}, "shard") do update set "count" = c."count" + excluded."count")
     select count(*) as "n" from "moved"`,
    parameters,
  );
  const [dropped] = await sql<{ n: string }>(
    em,
    `with "gone" as (
       delete from "ticket_filter_counts" t
        using (select ${KEY}, "shard" from "ticket_filter_counts" where "count" = 0${scope} limit $1 for update skip locked) s
        where ${same('t', 's')} and t."count" = 0
       returning 1)
     select count(*) as "n" from "gone"`,
    parameters,
  );
  return Number(moved.n) + Number(dropped.n);
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
