import { Migration } from '@mikro-orm/migrations';

/**
 * GET /metrics without a scan of whole tables on each scrape. Executions by status: counters
 * kept by triggers in the same transaction as every insert, status change and delete, in shards
 * (the backend pid modulo 16) so that concurrent writers do not queue on one row; a scrape sums
 * at most 80 rows. Deliveries the loop guard stopped: a partial index that holds only those.
 */
export class Migration20261124090000_execution_counts extends Migration {

  override name = 'Migration20261124090000_execution_counts';

  override up(): void | Promise<void> {
    this.addSql(`create table "execution_counts" ("status" text not null, "shard" smallint not null, "count" bigint not null default '0', primary key ("status", "shard"));`);
    this.addSql(`alter table "execution_counts" add constraint "execution_counts_status_check" check ("status" in ('pending', 'running', 'completed', 'failed', 'cancelled'));`);
    this.addSql(`insert into "execution_counts" ("status", "shard", "count") select "status", 0, count(*) from "executions" group by "status";`);
    // Each branch names only the transition tables its trigger has (plpgsql plans a statement when it first runs).
    this.addSql(`create function "deskflow_count_executions"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into "execution_counts" as c ("status", "shard", "count")
    select "status", pg_backend_pid() % 16, count(*) from "new_executions" group by "status"
    on conflict ("status", "shard") do update set "count" = c."count" + excluded."count";
  elsif tg_op = 'DELETE' then
    insert into "execution_counts" as c ("status", "shard", "count")
    select "status", pg_backend_pid() % 16, -count(*) from "old_executions" group by "status"
    on conflict ("status", "shard") do update set "count" = c."count" + excluded."count";
  else
    insert into "execution_counts" as c ("status", "shard", "count")
    select d."status", pg_backend_pid() % 16, sum(d."delta") from (
      select n."status", 1 as "delta" from "new_executions" n join "old_executions" o on o."id" = n."id" where o."status" <> n."status"
      union all
      select o."status", -1 from "new_executions" n join "old_executions" o on o."id" = n."id" where o."status" <> n."status"
    ) d
    group by d."status"
    on conflict ("status", "shard") do update set "count" = c."count" + excluded."count";
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger "executions_count_insert" after insert on "executions" referencing new table as "new_executions" for each statement execute function "deskflow_count_executions"();`);
    this.addSql(`create trigger "executions_count_update" after update on "executions" referencing old table as "old_executions" new table as "new_executions" for each statement execute function "deskflow_count_executions"();`);
    this.addSql(`create trigger "executions_count_delete" after delete on "executions" referencing old table as "old_executions" for each statement execute function "deskflow_count_executions"();`);
    this.addSql(`create index "outbox_events_loop_guard_idx" on "outbox_events" ("created_at") where "last_error" like 'loop guard:%';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "outbox_events_loop_guard_idx";`);
    this.addSql(`drop trigger if exists "executions_count_insert" on "executions";`);
    this.addSql(`drop trigger if exists "executions_count_update" on "executions";`);
    this.addSql(`drop trigger if exists "executions_count_delete" on "executions";`);
    this.addSql(`drop function if exists "deskflow_count_executions"();`);
    this.addSql(`drop table if exists "execution_counts";`);
  }

}
