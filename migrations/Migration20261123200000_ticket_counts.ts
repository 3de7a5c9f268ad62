import { Migration } from '@mikro-orm/migrations';

/**
 * The ticket list's `total` without a count over the workspace's tickets: per workspace and
 * status, counters kept by triggers in the same transaction as every insert, status change and
 * delete. Each connection adds to a shard of its own (its backend pid modulo 16), so concurrent
 * writers in one workspace do not queue on one counter row; a read sums the shards.
 */
export class Migration20261123200000_ticket_counts extends Migration {

  override name = 'Migration20261123200000_ticket_counts';

  override up(): void | Promise<void> {
    this.addSql(`create table "ticket_counts" ("workspace_id" uuid not null, "status" text not null, "shard" smallint not null, "count" bigint not null default '0', primary key ("workspace_id", "status", "shard"));`);
    this.addSql(`alter table "ticket_counts" add constraint "ticket_counts_status_check" check ("status" in ('open', 'pending', 'escalated', 'solved', 'closed'));`);
    this.addSql(`insert into "ticket_counts" ("workspace_id", "status", "shard", "count") select "workspace_id", "status", 0, count(*) from "tickets" group by "workspace_id", "status";`);
    // Each branch names only the transition tables its trigger has (plpgsql plans a statement when it first runs).
    this.addSql(`create function "deskflow_count_tickets"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select "workspace_id", "status", pg_backend_pid() % 16, count(*) from "new_tickets" group by "workspace_id", "status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";
  elsif tg_op = 'DELETE' then
    insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select "workspace_id", "status", pg_backend_pid() % 16, -count(*) from "old_tickets" group by "workspace_id", "status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";
  else
    insert into "ticket_counts" as c ("workspace_id", "status", "shard", "count")
    select d."workspace_id", d."status", pg_backend_pid() % 16, sum(d."delta") from (
      select n."workspace_id", n."status", 1 as "delta" from "new_tickets" n join "old_tickets" o on o."id" = n."id" where o."status" <> n."status"
      union all
      select o."workspace_id", o."status", -1 from "new_tickets" n join "old_tickets" o on o."id" = n."id" where o."status" <> n."status"
    ) d
    group by d."workspace_id", d."status"
    on conflict ("workspace_id", "status", "shard") do update set "count" = c."count" + excluded."count";
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger "tickets_count_insert" after insert on "tickets" referencing new table as "new_tickets" for each statement execute function "deskflow_count_tickets"();`);
    this.addSql(`create trigger "tickets_count_update" after update on "tickets" referencing old table as "old_tickets" new table as "new_tickets" for each statement execute function "deskflow_count_tickets"();`);
    this.addSql(`create trigger "tickets_count_delete" after delete on "tickets" referencing old table as "old_tickets" for each statement execute function "deskflow_count_tickets"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "tickets_count_insert" on "tickets";`);
    this.addSql(`drop trigger if exists "tickets_count_update" on "tickets";`);
    this.addSql(`drop trigger if exists "tickets_count_delete" on "tickets";`);
    this.addSql(`drop function if exists "deskflow_count_tickets"();`);
    this.addSql(`drop table if exists "ticket_counts";`);
  }

}
