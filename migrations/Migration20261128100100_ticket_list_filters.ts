import { Migration } from '@mikro-orm/migrations';

const KIND = (t: string) => `case when ${t}."assigned_to" is null then 'none' when ${t}."assigned_to" = 'ai' then 'ai' else 'member' end`;
const KEY = '"workspace_id", "status", "priority", "source", "assignee", "shard"';

/** The counting function of the given key (see the ticket_counts migration for the shards). */
function countFunction(wide: boolean): string {
  const columns = wide ? '"workspace_id", "status", "priority", "source", "assignee"' : '"workspace_id", "status"';
  const conflict = wide ? KEY : '"workspace_id", "status", "shard"';
  const of = (t: string) => (wide ? `${t}."workspace_id", ${t}."status", ${t}."priority", ${t}."source", ${KIND(t)} as "assignee"` : `${t}."workspace_id", ${t}."status"`);
  const keyOf = (t: string) => (wide ? `${t}."workspace_id", ${t}."status", ${t}."priority", ${t}."source", ${t}."assignee"` : `${t}."workspace_id", ${t}."status"`);
  const changed = wide
    ? `(o."status", o."priority", o."source", ${KIND('o')}) is distinct from (n."status", n."priority", n."source", ${KIND('n')})`
    : 'o."status" <> n."status"';
  const groups = wide ? '1, 2, 3, 4, 5' : '1, 2';
  return `create or replace function "deskflow_count_tickets"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into "ticket_counts" as c (${columns}, "shard", "count")
    select ${of('n')}, pg_backend_pid() % 16, count(*) from "new_tickets" n group by ${groups}
    on conflict (${conflict}) do update set "count" = c."count" + excluded."count";
  elsif tg_op = 'DELETE' then
    insert into "ticket_counts" as c (${columns}, "shard", "count")
    select ${of('o')}, pg_backend_pid() % 16, -count(*) from "old_tickets" o group by ${groups}
    on conflict (${conflict}) do update set "count" = c."count" + excluded."count";
  else
    insert into "ticket_counts" as c (${columns}, "shard", "count")
    select ${keyOf('d')}, pg_backend_pid() % 16, sum(d."delta") from (
      select ${of('n')}, 1 as "delta" from "new_tickets" n join "old_tickets" o on o."id" = n."id" where ${changed}
      union all
      select ${of('o')}, -1 from "new_tickets" n join "old_tickets" o on o."id" = n."id" where ${changed}
    ) d
    group by ${groups}
    on conflict (${conflict}) do update set "count" = c."count" + excluded."count";
  end if;
  return null;
end $$;`;
}

/**
 * The ticket list's filters and sorts (src/tickets/list.ts) at a million tickets:
 *
 * - `ticket_counts` also tells tickets apart by priority, source and kind of assignee (none, the
 *   AI agent, a member), so that the exact total of a list filtered by those (and status) is
 *   still a sum of counters. The same one statement per write keeps them; the counters are
 *   counted afresh here, with writes to tickets held back meanwhile.
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
    this.addSql(`alter table "ticket_counts" drop constraint "ticket_counts_pkey";`);
    this.addSql(`alter table "ticket_counts" add "priority" text not null default 'medium', add "source" text not null default 'api', add "assignee" text not null default 'none';`);
    this.addSql(`alter table "ticket_counts" add primary key (${KEY});`);
    this.addSql(`alter table "ticket_counts" add constraint "ticket_counts_priority_check" check ("priority" in ('low', 'medium', 'high', 'urgent'));`);
    this.addSql(`alter table "ticket_counts" add constraint "ticket_counts_source_check" check ("source" in ('email', 'widget', 'api'));`);
    this.addSql(`alter table "ticket_counts" add constraint "ticket_counts_assignee_check" check ("assignee" in ('none', 'ai', 'member'));`);
    this.addSql(countFunction(true));
    this.addSql(`delete from "ticket_counts";`);
    this.addSql(`insert into "ticket_counts" (${KEY}, "count") select t."workspace_id", t."status", t."priority", t."source", ${KIND('t')}, 0, count(*) from "tickets" t group by 1, 2, 3, 4, 5;`);

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
    this.addSql(`lock table "tickets" in share row exclusive mode;`);
    this.addSql(`alter table "ticket_counts" drop constraint "ticket_counts_pkey";`);
    this.addSql(`alter table "ticket_counts" drop constraint "ticket_counts_priority_check", drop constraint "ticket_counts_source_check", drop constraint "ticket_counts_assignee_check";`);
    this.addSql(`alter table "ticket_counts" drop column "priority", drop column "source", drop column "assignee";`);
    this.addSql(`delete from "ticket_counts";`);
    this.addSql(`alter table "ticket_counts" add primary key ("workspace_id", "status", "shard");`);
    this.addSql(countFunction(false));
    this.addSql(`insert into "ticket_counts" ("workspace_id", "status", "shard", "count") select "workspace_id", "status", 0, count(*) from "tickets" group by 1, 2;`);
  }

}
