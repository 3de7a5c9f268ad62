import { Migration } from '@mikro-orm/migrations';

export class Migration20261123090646_initial extends Migration {

  override name = 'Migration20261123090646_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "workspaces" ("id" uuid not null, "name" varchar(200) not null, "reopen_on_customer_reply" boolean not null default true, "created_at" timestamptz(3) not null, primary key ("id"));`);

    this.addSql(`create table "tickets" ("id" uuid not null, "workspace_id" uuid not null, "subject" text not null, "status" text not null, "priority" text not null, "customer_email" varchar(320) not null, "customer_name" varchar(200) null, "source" text not null, "assigned_to" varchar(200) null, "resolution_type" text null, "tags" text[] not null default '{}', "language" varchar(3) null, "message_seq" int not null default 0, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "tickets_workspace_created_idx" on "tickets" ("workspace_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "tickets_workspace_status_created_idx" on "tickets" ("workspace_id", "status", "created_at" desc, "id" desc);`);

    this.addSql(`create table "messages" ("id" uuid not null, "ticket_id" uuid not null, "seq" int not null, "direction" text not null, "sender_email" varchar(320) not null, "sender_name" varchar(200) null, "body" text not null, "body_html" text null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`alter table "messages" add constraint "messages_ticket_seq_unique" unique ("ticket_id", "seq");`);

    this.addSql(`create table "outbox_events" ("id" uuid not null, "workspace_id" uuid not null, "type" text not null, "ticket_id" uuid null, "payload" jsonb not null, "created_at" timestamptz(3) not null, "delivered_at" timestamptz(3) null, "attempts" int not null default 0, "last_error" text null, primary key ("id"));`);
    this.addSql(`create index "outbox_events_undelivered_idx" on "outbox_events" ("created_at") where "delivered_at" is null;`);

    this.addSql(`create table "members" ("workspace_id" uuid not null, "user_id" varchar(200) not null, "role" text not null, "created_at" timestamptz(3) not null, primary key ("workspace_id", "user_id"));`);

    this.addSql(`create table "api_keys" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(200) null, "lookup" varchar(32) not null, "secret_hash" varchar(64) not null, "created_at" timestamptz(3) not null, "revoked_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "api_keys_workspace_id_index" on "api_keys" ("workspace_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_lookup_unique" unique ("lookup");`);

    this.addSql(`alter table "tickets" add constraint "tickets_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "tickets" add constraint "tickets_status_check" check ("status" in ('open', 'pending', 'escalated', 'solved', 'closed'));`);
    this.addSql(`alter table "tickets" add constraint "tickets_priority_check" check ("priority" in ('low', 'medium', 'high', 'urgent'));`);
    this.addSql(`alter table "tickets" add constraint "tickets_source_check" check ("source" in ('email', 'widget', 'api'));`);
    this.addSql(`alter table "tickets" add constraint "tickets_resolution_type_check" check ("resolution_type" in ('resolved_by_agent', 'resolved_by_ai', 'resolved_by_automation', 'duplicate', 'spam'));`);

    this.addSql(`alter table "messages" add constraint "messages_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id") on delete cascade;`);
    this.addSql(`alter table "messages" add constraint "messages_direction_check" check ("direction" in ('inbound', 'outbound'));`);

    this.addSql(`alter table "outbox_events" add constraint "outbox_events_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_type_check" check ("type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added'));`);

    this.addSql(`alter table "members" add constraint "members_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "members" add constraint "members_role_check" check ("role" in ('member', 'admin'));`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tickets" drop constraint "tickets_workspace_id_foreign";`);
    this.addSql(`alter table "outbox_events" drop constraint "outbox_events_workspace_id_foreign";`);
    this.addSql(`alter table "members" drop constraint "members_workspace_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_workspace_id_foreign";`);
    this.addSql(`alter table "messages" drop constraint "messages_ticket_id_foreign";`);

    this.addSql(`drop table if exists "workspaces" cascade;`);
    this.addSql(`drop table if exists "tickets" cascade;`);
    this.addSql(`drop table if exists "messages" cascade;`);
    this.addSql(`drop table if exists "outbox_events" cascade;`);
    this.addSql(`drop table if exists "members" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
  }

}
