import { Migration } from '@mikro-orm/migrations';

/** SLA policies: the targets a workspace promises per metric and priority, in the order they are matched. */
export class Migration20261128120000_sla_policies extends Migration {

  override name = 'Migration20261128120000_sla_policies';

  override up(): void | Promise<void> {
    this.addSql(`create table "sla_policies" ("id" uuid not null, "created_at" timestamptz(3) not null, "workspace_id" uuid not null, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default true, "position" int not null, "match" jsonb null, "calendar_id" uuid null, "targets" jsonb not null, "pause_on" jsonb not null, "updated_at" timestamptz(3) not null, "deleted_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "sla_policies_workspace_order_idx" on "sla_policies" ("workspace_id", "position", "created_at", "id") where "deleted_at" is null;`);
    this.addSql(`alter table "sla_policies" add constraint "sla_policies_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sla_policies" cascade;`);
  }

}
