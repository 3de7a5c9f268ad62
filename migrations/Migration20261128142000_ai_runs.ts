import { Migration } from '@mikro-orm/migrations';

/** The AI owner's runs: what it did per customer message (turns), and wake-ups kept until Temporal takes them. */
export class Migration20261128142000_ai_runs extends Migration {

  override name = 'Migration20261128142000_ai_runs';

  override up(): void | Promise<void> {
    this.addSql(`create table "ai_wakeups" ("id" uuid not null, "workspace_id" uuid not null, "ticket_id" uuid not null, "kind" text not null, "reason" text not null, "created_at" timestamptz(3) not null, "delivered_at" timestamptz(3) null, "attempts" int not null default 0, "last_error" text null, primary key ("id"));`);
    this.addSql(`create index "ai_wakeups_undelivered_idx" on "ai_wakeups" ("created_at") where "delivered_at" is null;`);
    this.addSql(`create table "ai_turns" ("id" uuid not null, "workspace_id" uuid not null, "ticket_id" uuid not null, "answers_message_id" uuid not null, "action" text not null, "reason" text null, "citations" text[] not null default '{}', "message_id" uuid null, "model" varchar(200) null, "body" text null, "draft_state" text null, "sent_at" timestamptz(3) null, "sent_by" varchar(200) null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "ai_turns_ticket_created_idx" on "ai_turns" ("ticket_id", "created_at");`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_ticket_message_unique" unique ("ticket_id", "answers_message_id");`);
    this.addSql(`alter table "ai_wakeups" add constraint "ai_wakeups_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "ai_wakeups" add constraint "ai_wakeups_kind_check" check ("kind" in ('wake', 'stop'));`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_action_check" check ("action" in ('reply', 'handoff', 'draft'));`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_draft_state_check" check ("draft_state" in ('waiting', 'sent', 'superseded'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ai_wakeups" cascade;`);
    this.addSql(`drop table if exists "ai_turns" cascade;`);
  }

}
