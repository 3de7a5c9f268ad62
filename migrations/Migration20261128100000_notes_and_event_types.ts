import { Migration } from '@mikro-orm/migrations';

/**
 * Internal notes on tickets (src/notes/), and two outbox event types that no workflow listens
 * to: `message_added` (a message that is no customer reply) and `note_added`. The search index
 * and the live feed follow tickets through them.
 */
export class Migration20261128100000_notes_and_event_types extends Migration {

  override name = 'Migration20261128100000_notes_and_event_types';

  override up(): void | Promise<void> {
    this.addSql(`create table "notes" ("id" uuid not null, "created_at" timestamptz(3) not null, "ticket_id" uuid not null, "author_id" varchar(200) not null, "body" text not null, primary key ("id"));`);
    this.addSql(`create index "notes_ticket_created_idx" on "notes" ("ticket_id", "created_at", "id");`);
    this.addSql(`alter table "notes" add constraint "notes_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id") on delete cascade;`);

    this.addSql(`alter table "outbox_events" drop constraint "outbox_events_type_check";`);
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_type_check" check ("type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'message_added', 'note_added'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "outbox_events" where "type" in ('message_added', 'note_added');`);
    this.addSql(`alter table "outbox_events" drop constraint "outbox_events_type_check";`);
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_type_check" check ("type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added'));`);
    this.addSql(`drop table if exists "notes" cascade;`);
  }

}
