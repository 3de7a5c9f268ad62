import { Migration } from '@mikro-orm/migrations';

/** Calendars: when a workspace's desk is open, for workflows that count open time. */
export class Migration20261125090000_calendars extends Migration {

  override name = 'Migration20261125090000_calendars';

  override up(): void | Promise<void> {
    this.addSql(`create table "calendars" ("id" uuid not null, "created_at" timestamptz(3) not null, "workspace_id" uuid not null, "name" varchar(200) not null, "time_zone" varchar(100) not null, "hours" jsonb not null, "holidays" jsonb not null, "updated_at" timestamptz(3) not null, "deleted_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "calendars_workspace_created_idx" on "calendars" ("workspace_id", "created_at" desc, "id" desc) where "deleted_at" is null;`);
    this.addSql(`alter table "calendars" add constraint "calendars_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "calendars" cascade;`);
  }

}
