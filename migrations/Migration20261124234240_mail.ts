import { Migration } from '@mikro-orm/migrations';

/**
 * The e-mail channel: mailboxes (sealed credentials and the IMAP cursor), a receipt per mail
 * read, the Message-IDs of messages that came in or went out by mail (threading, duplicates),
 * and the SMTP delivery of outbound messages.
 */
export class Migration20261124234240_mail extends Migration {

  override name = 'Migration20261124234240_mail';

  override up(): void | Promise<void> {
    this.addSql(`create table "mailboxes" ("id" uuid not null, "created_at" timestamptz(3) not null, "workspace_id" uuid not null, "address" varchar(320) not null, "name" varchar(200) null, "imap" jsonb not null, "smtp" jsonb not null, "imap_secret" text not null, "smtp_secret" text not null, "plus_addressing" boolean not null default false, "state" text not null default 'new', "last_error" text null, "last_error_at" timestamptz(3) null, "last_fetch_at" timestamptz(3) null, "uid_validity" bigint null, "last_uid" bigint not null default '0', "import_since" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`alter table "mailboxes" add constraint "mailboxes_workspace_address_unique" unique ("workspace_id", "address");`);

    this.addSql(`create table "mail_receipts" ("id" uuid not null, "created_at" timestamptz(3) not null, "mailbox_id" uuid not null, "uid_validity" bigint not null, "uid" bigint not null, "rfc_message_id" varchar(998) null, "size" int not null, "outcome" text not null, "ticket_id" uuid null, "message_id" uuid null, "detail" text null, "seen_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "mail_receipts_unseen_idx" on "mail_receipts" ("mailbox_id") where "seen_at" is null and "outcome" in ('ticket', 'reply', 'duplicate');`);
    this.addSql(`create index "mail_receipts_mailbox_outcome_idx" on "mail_receipts" ("mailbox_id", "outcome", "created_at");`);
    this.addSql(`alter table "mail_receipts" add constraint "mail_receipts_mailbox_uid_unique" unique ("mailbox_id", "uid_validity", "uid");`);

    this.addSql(`create table "mail_messages" ("message_id" uuid not null, "workspace_id" uuid not null, "ticket_id" uuid not null, "mailbox_id" uuid null, "direction" text not null, "rfc_message_id" varchar(998) not null, "references" text[] not null default '{}', "created_at" timestamptz(3) not null, primary key ("message_id"));`);
    this.addSql(`create index "mail_messages_ticket_idx" on "mail_messages" ("ticket_id", "created_at");`);
    this.addSql(`alter table "mail_messages" add constraint "mail_messages_workspace_rfc_unique" unique ("workspace_id", "rfc_message_id");`);

    this.addSql(`create table "mail_deliveries" ("message_id" uuid not null, "workspace_id" uuid not null, "mailbox_id" uuid null, "ticket_id" uuid not null, "kind" text not null, "via" text not null, "to_address" varchar(320) not null, "to_name" varchar(200) null, "subject" text not null, "in_reply_to" varchar(998) null, "references" text[] not null default '{}', "status" text not null default 'pending', "attempts" int not null default 0, "last_error" text null, "smtp_response" text null, "sent_at" timestamptz(3) null, "failed_at" timestamptz(3) null, "started_at" timestamptz(3) null, "created_at" timestamptz(3) not null, primary key ("message_id"));`);
    this.addSql(`create index "mail_deliveries_unstarted_idx" on "mail_deliveries" ("created_at") where "via" = 'workflow' and "started_at" is null;`);

    this.addSql(`alter table "mailboxes" add constraint "mailboxes_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "mailboxes" add constraint "mailboxes_state_check" check ("state" in ('new', 'watching', 'error'));`);

    this.addSql(`alter table "mail_receipts" add constraint "mail_receipts_mailbox_id_foreign" foreign key ("mailbox_id") references "mailboxes" ("id") on delete cascade;`);
    this.addSql(`alter table "mail_receipts" add constraint "mail_receipts_outcome_check" check ("outcome" in ('ticket', 'reply', 'duplicate', 'own', 'bounce', 'automatic', 'too_large', 'invalid', 'failed'));`);

    this.addSql(`alter table "mail_messages" add constraint "mail_messages_message_id_foreign" foreign key ("message_id") references "messages" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "mail_messages" add constraint "mail_messages_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "mail_messages" add constraint "mail_messages_mailbox_id_foreign" foreign key ("mailbox_id") references "mailboxes" ("id") on delete set null;`);
    this.addSql(`alter table "mail_messages" add constraint "mail_messages_direction_check" check ("direction" in ('inbound', 'outbound'));`);

    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_message_id_foreign" foreign key ("message_id") references "messages" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_mailbox_id_foreign" foreign key ("mailbox_id") references "mailboxes" ("id") on delete set null;`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_kind_check" check ("kind" in ('automation', 'agent'));`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_via_check" check ("via" in ('run', 'workflow'));`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_status_check" check ("status" in ('pending', 'sent', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "mail_receipts" drop constraint "mail_receipts_mailbox_id_foreign";`);
    this.addSql(`alter table "mail_messages" drop constraint "mail_messages_mailbox_id_foreign";`);
    this.addSql(`alter table "mail_deliveries" drop constraint "mail_deliveries_mailbox_id_foreign";`);

    this.addSql(`drop table if exists "mailboxes" cascade;`);
    this.addSql(`drop table if exists "mail_receipts" cascade;`);
    this.addSql(`drop table if exists "mail_messages" cascade;`);
    this.addSql(`drop table if exists "mail_deliveries" cascade;`);
  }

}
