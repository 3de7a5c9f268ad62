import { Migration } from '@mikro-orm/migrations';

/**
 * Service-level clocks: each governed ticket's state (ticket_slas) and targets (sla_targets, the
 * queue's index), the terms they count with (sla_terms), the passes that choose policies again
 * (sla_passes); the clocks read the message_added events of agents' replies.
 */
export class Migration20261128121000_sla_clocks extends Migration {

  override name = 'Migration20261128121000_sla_clocks';

  override up(): void | Promise<void> {
    this.addSql(`create table "ticket_slas" ("ticket_id" uuid not null, "workspace_id" uuid not null, "policy_id" uuid null, "terms_id" varchar(64) null, "state" jsonb null, "revision" int not null default 0, "signalled_revision" int not null default 0, "signal_attempts" int not null default 0, "last_signal_error" text null, "updated_at" timestamptz(3) not null, primary key ("ticket_id"));`);
    this.addSql(`create index "ticket_slas_unsignalled_idx" on "ticket_slas" ("updated_at") where "revision" <> "signalled_revision";`);
    this.addSql(`create table "sla_terms" ("id" varchar(64) not null, "workspace_id" uuid not null, "terms" jsonb not null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create table "sla_targets" ("ticket_id" uuid not null, "metric" text not null, "workspace_id" uuid not null, "priority" text not null, "cycle" int not null, "status" text not null, "started_at" timestamptz(3) not null, "due_at" timestamptz(3) null, "warn_at" timestamptz(3) null, "paused_seconds" int not null, "fulfilled_at" timestamptz(3) null, "breached_at" timestamptz(3) null, "warning_sent_at" timestamptz(3) null, "breach_sent_at" timestamptz(3) null, "updated_at" timestamptz(3) not null, primary key ("ticket_id", "metric"));`);
    this.addSql(`create index "sla_targets_queue_idx" on "sla_targets" ("workspace_id", "status", "due_at", "ticket_id", "metric") where "fulfilled_at" is null;`);
    this.addSql(`create table "sla_passes" ("workspace_id" uuid not null, "requested_at" timestamptz(3) not null, "phase" varchar(20) not null, "cursor_created_at" timestamptz(3) null, "cursor_id" uuid null, "updated_at" timestamptz(3) not null, primary key ("workspace_id"));`);
    this.addSql(`alter table "ticket_slas" add constraint "ticket_slas_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "ticket_slas" add constraint "ticket_slas_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "sla_terms" add constraint "sla_terms_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "sla_targets" add constraint "sla_targets_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id") on delete cascade;`);
    this.addSql(`alter table "sla_targets" add constraint "sla_targets_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "sla_targets" add constraint "sla_targets_metric_check" check ("metric" in ('first_reply', 'next_reply', 'resolution'));`);
    this.addSql(`alter table "sla_targets" add constraint "sla_targets_priority_check" check ("priority" in ('low', 'medium', 'high', 'urgent'));`);
    this.addSql(`alter table "sla_targets" add constraint "sla_targets_status_check" check ("status" in ('active', 'paused', 'fulfilled', 'breached'));`);
    this.addSql(`alter table "sla_passes" add constraint "sla_passes_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ticket_slas" cascade;`);
    this.addSql(`drop table if exists "sla_terms" cascade;`);
    this.addSql(`drop table if exists "sla_targets" cascade;`);
    this.addSql(`drop table if exists "sla_passes" cascade;`);
  }

}
