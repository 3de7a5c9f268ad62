import { Migration } from '@mikro-orm/migrations';

const KIND = (t: string) => `case when ${t}."assigned_to" is null then 'none' when ${t}."assigned_to" = 'ai' then 'ai' else 'member' end`;
const KEY = '"workspace_id", "status", "priority", "source", "assignee", "shard"';

/** What the ticket_counts migration's function does to `ticket_counts` on `op`, unchanged. */
const NARROW = {
  insert: `insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select "workspace_id", "status", pg_backend_pid() % 16, count(*) from "new_tickets" group by "workspace_id", "status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";`,
  delete: `insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select "workspace_id", "status", pg_backend_pid() % 16, -count(*) from "old_tickets" group by "workspace_id", "status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";`,
  update: `insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select d."workspace_id", d."status", pg_backend_pid() % 16, sum(d."delta") from (
      select n."workspace_id", n."status", 1 as "delta" from "new_tickets" n join "old_tickets" o on o."id" = n."id" where o."status" <> n."status"
      union all
      select o."workspace_id", o."status", -1 from "new_tickets" n join "old_tickets" o on o."id" = n."id" where o."status" <> n."status"
    ) d
    group by d."workspace_id", d."status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";`,
};

/** The same for `ticket_filter_counts`, by status, priority, source and kind of assignee. */
function wide(op: 'insert' | 'delete' | 'update'): string {
  const of = (t: string) => `${t}."workspace_id", ${t}."status", ${t}."priority", ${t}."source", ${KIND(t)} as "assignee"`;
  const into = `insert into "ticket_filter_counts" as c ("workspace_id", "status", "priority", "source", "assignee", "shard", "count")`;
  const upsert = `on conflict (${KEY}) do update set "count" = c."count" + excluded."count";`;
  if (op === 'insert') return `${into}\n    select ${of('n')}, pg_backend_pid() % 16, count(*) from "new_tickets" n group by 1, 2, 3, 4, 5\n    ${upsert}`;
  if (op === 'delete') return `${into}\n    select ${of('o')}, pg_backend_pid() % 16, -count(*) from "old_tickets" o group by 1, 2, 3, 4, 5\n    ${upsert}`;
  const changed = `(o."status", o."priority", o."source", ${KIND('o')}) is distinct from (n."status", n."priority", n."source", ${KIND('n')})`;
  return `${into}
    select d."workspace_id", d."status", d."priority", d."source", d."assignee", pg_backend_pid() % 16, sum(d."delta") from (
      select ${of('n')}, 1 as "delta" from "new_tickets" n join "old_tickets" o on o."id" = n."id" where ${changed}
      union all
      select ${of('o')}, -1 from "new_tickets" n join "old_tickets" o on o."id" = n."id" where ${changed}
    ) d
    group by 1, 2, 3, 4, 5
    ${upsert}`;
}

/** The counting function: `ticket_counts` as before and, with `filters`, `ticket_filter_counts` after it (in that order in every writer). */
function countFunction(filters: boolean): string {
  const branch = (op: 'insert' | 'delete' | 'update') => (filters ? `${NARROW[op]}\n    ${wide(op)}` : NARROW[op]);
  // Each branch names only the transition tables its trigger has (plpgsql plans a statement when it first runs).
  return `create or replace function "deskflow_count_tickets"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${branch('insert')}
  elsif tg_op = 'DELETE' then
    ${branch('delete')}
  else
    ${branch('update')}
  end if;
  return null;
end $$;`;
}

/**
 * The ticket list's filters and sorts (src/tickets/list.ts) at a million tickets:
 *
 * - `ticket_filter_counts`: tickets per status, priority, source and kind of assignee (none, the
 *   AI agent, a member), so that the exact total of a list filtered by those is still a sum of
 *   counters. The statement triggers of `tickets` keep it in the same call that keeps
 *   `ticket_counts` (which stays narrow: the plain and status-only lists sum at most 5 × 16 rows
 *   there, where they would sum up to 180 × 16 here). Its shards are folded into shard 0 by the
 *   relay's periodic purge (counts.ts, foldFilterCounts). Counted afresh here, with writes to
 *   tickets held back meanwhile.
 * - `ticket_tag_counts`: tickets per tag, kept by the write that changes a ticket's tags.
 * - Indexes where page 1 or the total would otherwise read the whole workspace: by updated_at
 *   (sort), by customer email (any letter case), by assignee and by tag. The last two are
 *   partial: a ticket enters them once it is assigned or tagged, so creating one does not pay
 *   for them.
 */
export class Migration20261128100100_ticket_list_filters extends Migration {

  override name = 'Migration20261128100100_ticket_list_filters';

  override up(): void | Promise<void> {
    // The counters and the tickets stay in step: no ticket changes until this commits.
    this.addSql(`lock table "tickets" in share row exclusive mode;`);
    this.addSql(`create table "ticket_filter_counts" ("workspace_id" uuid not null, "status" text not null, "priority" text not null, "source" text not null, "assignee" text not null, "shard" smallint not null, "count" bigint not null default '0', primary key (${KEY}));`);
    this.addSql(`alter table "ticket_filter_counts" add constraint "ticket_filter_counts_status_check" check ("status" in ('open', 'pending', 'escalated', 'solved', 'closed'));`);
    this.addSql(`alter table "ticket_filter_counts" add constraint "ticket_filter_counts_priority_check" check ("priority" in ('low', 'medium', 'high', 'urgent'));`);
    this.addSql(`alter table "ticket_filter_counts" add constraint "ticket_filter_counts_source_check" check ("source" in ('email', 'widget', 'api'));`);
    this.addSql(`alter table "ticket_filter_counts" add constraint "ticket_filter_counts_assignee_check" check ("assignee" in ('none', 'ai', 'member'));`);
    this.addSql(`insert into "ticket_filter_counts" (${KEY}, "count") select t."workspace_id", t."status", t."priority", t."source", ${KIND('t')}, 0, count(*) from "tickets" t group by 1, 2, 3, 4, 5;`);
    this.addSql(countFunction(true));

    this.addSql(`create table "ticket_tag_counts" ("workspace_id" uuid not null, "tag" varchar(100) not null, "shard" smallint not null, "count" bigint not null default '0', primary key ("workspace_id", "tag", "shard"));`);
    this.addSql(`insert into "ticket_tag_counts" ("workspace_id", "tag", "shard", "count") select t."workspace_id", tag, 0, count(*) from "tickets" t, unnest(t."tags") as tag group by 1, 2;`);

    this.addSql(`create index "tickets_workspace_updated_idx" on "tickets" ("workspace_id", "updated_at" desc, "id" desc);`);
    this.addSql(`create index "tickets_workspace_customer_idx" on "tickets" ("workspace_id", lower("customer_email"));`);
    this.addSql(`create index "tickets_workspace_assignee_idx" on "tickets" ("workspace_id", "assigned_to", "created_at" desc, "id" desc) where "assigned_to" is not null;`);
    this.addSql(`create index "tickets_tags_idx" on "tickets" using gin ("tags") where "tags" <> '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "tickets_workspace_updated_idx";`);
    this.addSql(`drop index if exists "tickets_workspace_customer_idx";`);
    this.addSql(`drop index if exists "tickets_workspace_assignee_idx";`);
    this.addSql(`drop index if exists "tickets_tags_idx";`);

    this.addSql(`drop table if exists "ticket_tag_counts";`);
    this.addSql(countFunction(false));
    this.addSql(`drop table if exists "ticket_filter_counts";`);
  }

}
