import { Migration } from '@mikro-orm/migrations';

export class Migration20261123091542_workflows extends Migration {

  override name = 'Migration20261123091542_workflows';

  override up(): void | Promise<void> {
    this.addSql(`create table "workflows" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(200) not null, "description" text null, "trigger_type" text not null, "is_active" boolean not null default false, "version" int not null default 1, "graph" jsonb not null, "webhook_secret" varchar(64) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "deleted_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "workflows_workspace_trigger_idx" on "workflows" ("workspace_id", "trigger_type") where "deleted_at" is null;`);

    this.addSql(`create table "workflow_versions" ("workflow_id" uuid not null, "version" int not null, "trigger_type" text not null, "graph" jsonb not null, "created_at" timestamptz(3) not null, primary key ("workflow_id", "version"));`);

    this.addSql(`create table "executions" ("id" uuid not null, "workspace_id" uuid not null, "workflow_id" uuid not null, "workflow_version" int not null, "status" text not null, "triggered_by" text not null, "ticket_id" uuid null, "event_id" uuid null, "context" jsonb not null, "chain" text[] not null default '{}', "run_id" varchar(300) not null, "dispatched_at" timestamptz(3) null, "started_at" timestamptz(3) not null, "completed_at" timestamptz(3) null, "error" text null, primary key ("id"));`);
    this.addSql(`create index "executions_workflow_started_idx" on "executions" ("workflow_id", "started_at" desc, "id" desc);`);
    this.addSql(`create index "executions_undispatched_idx" on "executions" ("started_at") where "dispatched_at" is null and "status" = 'pending';`);
    this.addSql(`alter table "executions" add constraint "executions_event_workflow_unique" unique ("event_id", "workflow_id");`);

    this.addSql(`create table "execution_steps" ("execution_id" uuid not null, "node_id" varchar(100) not null, "status" text not null, "result" jsonb null, "started_at" timestamptz(3) not null, "completed_at" timestamptz(3) null, "error" text null, primary key ("execution_id", "node_id"));`);

    this.addSql(`alter table "messages" add "idempotency_key" varchar(200) null;`);
    this.addSql(`alter table "messages" add constraint "messages_idempotency_key_unique" unique ("idempotency_key");`);

    this.addSql(`alter table "workflows" add constraint "workflows_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "workflows" add constraint "workflows_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);

    this.addSql(`alter table "workflow_versions" add constraint "workflow_versions_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on delete cascade;`);
    this.addSql(`alter table "workflow_versions" add constraint "workflow_versions_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);

    this.addSql(`alter table "executions" add constraint "executions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "executions" add constraint "executions_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on delete cascade;`);
    this.addSql(`alter table "executions" add constraint "executions_status_check" check ("status" in ('pending', 'running', 'completed', 'failed', 'cancelled'));`);
    this.addSql(`alter table "executions" add constraint "executions_triggered_by_check" check ("triggered_by" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);

    this.addSql(`alter table "execution_steps" add constraint "execution_steps_execution_id_foreign" foreign key ("execution_id") references "executions" ("id") on delete cascade;`);
    this.addSql(`alter table "execution_steps" add constraint "execution_steps_status_check" check ("status" in ('passed', 'completed', 'failed', 'waiting', 'running'));`);

    // Wake the relay as soon as an event commits (it also polls, so a missed notification only delays).
    this.addSql(`create function "deskflow_notify_outbox"() returns trigger language plpgsql as $$ begin perform pg_notify('deskflow_outbox', ''); return null; end $$;`);
    this.addSql(`create trigger "outbox_events_notify" after insert on "outbox_events" for each statement execute function "deskflow_notify_outbox"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "outbox_events_notify" on "outbox_events";`);
    this.addSql(`drop function if exists "deskflow_notify_outbox"();`);
    this.addSql(`alter table "workflow_versions" drop constraint "workflow_versions_workflow_id_foreign";`);
    this.addSql(`alter table "executions" drop constraint "executions_workflow_id_foreign";`);
    this.addSql(`alter table "execution_steps" drop constraint "execution_steps_execution_id_foreign";`);

    this.addSql(`drop table if exists "workflows" cascade;`);
    this.addSql(`drop table if exists "workflow_versions" cascade;`);
    this.addSql(`drop table if exists "executions" cascade;`);
    this.addSql(`drop table if exists "execution_steps" cascade;`);

    this.addSql(`alter table "messages" drop constraint "messages_idempotency_key_unique";`);
    this.addSql(`alter table "messages" drop column "idempotency_key";`);
  }

}
