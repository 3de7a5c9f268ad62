import { Migration } from '@mikro-orm/migrations';

/**
 * Customer replies wait in reply_signals until Temporal has taken them; the open executions of
 * a ticket and its replies are found by index, not by scanning; steps keep the order of the
 * walk (several are recorded at one instant now).
 */
export class Migration20261123180000_reply_signals extends Migration {

  override name = 'Migration20261123180000_reply_signals';

  override up(): void | Promise<void> {
    this.addSql(`create table "reply_signals" ("execution_id" uuid not null, "message_id" uuid not null, "workspace_id" uuid not null, "message_at" timestamptz(3) not null, "temporal_workflow_id" varchar(300) not null, "created_at" timestamptz(3) not null, "delivered_at" timestamptz(3) null, "attempts" int not null default 0, "last_error" text null, primary key ("execution_id", "message_id"));`);
    this.addSql(`create index "reply_signals_undelivered_idx" on "reply_signals" ("created_at") where "delivered_at" is null;`);
    this.addSql(`alter table "reply_signals" add constraint "reply_signals_execution_id_foreign" foreign key ("execution_id") references "executions" ("id") on delete cascade;`);
    this.addSql(`alter table "reply_signals" add constraint "reply_signals_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "execution_steps" add "seq" int null;`);
    this.addSql(`create index "executions_open_ticket_idx" on "executions" ("ticket_id") where "status" in ('pending', 'running');`);
    this.addSql(`create index "outbox_events_ticket_type_created_idx" on "outbox_events" ("ticket_id", "type", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "reply_signals" cascade;`);
    this.addSql(`drop index if exists "executions_open_ticket_idx";`);
    this.addSql(`alter table "execution_steps" drop column "seq";`);
    this.addSql(`drop index if exists "outbox_events_ticket_type_created_idx";`);
  }

}
