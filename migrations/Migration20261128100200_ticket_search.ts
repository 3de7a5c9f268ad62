import { Migration } from '@mikro-orm/migrations';

/**
 * The stored search documents of the ticket list's `q` (src/tickets/search-index.ts): one per
 * ticket, its subject (weight A) and the bodies of its first and newest 24 messages (weight B,
 * 4,000 characters each), in the `simple` configuration, with a GIN index. The outbox relay
 * keeps them; here every existing ticket gets its document, in one statement.
 */
export class Migration20261128100200_ticket_search extends Migration {

  override name = 'Migration20261128100200_ticket_search';

  override up(): void | Promise<void> {
    this.addSql(`create table "ticket_search" ("ticket_id" uuid not null, "workspace_id" uuid not null, "created_at" timestamptz(3) not null, "message_seq" int not null, "document" tsvector not null, primary key ("ticket_id"));`);
    this.addSql(`alter table "ticket_search" add constraint "ticket_search_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id") on update cascade on delete cascade;`);
    this.addSql(`insert into "ticket_search" ("ticket_id", "workspace_id", "created_at", "message_seq", "document")
select t."id", t."workspace_id", t."created_at", t."message_seq",
       setweight(to_tsvector('simple', t."subject"), 'A') || setweight(to_tsvector('simple', coalesce((
         select string_agg(left(m."body", 4000), ' ' order by m."seq") from "messages" m
          where m."ticket_id" = t."id" and (m."seq" = 1 or m."seq" > t."message_seq" - 24)), '')), 'B')
  from "tickets" t;`);
    // Built after the rows are in: one pass instead of an update per row.
    this.addSql(`create index "ticket_search_document_idx" on "ticket_search" using gin ("document");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ticket_search" cascade;`);
  }

}
