import { Migration } from '@mikro-orm/migrations';

/**
 * The event feed (GET /api/v1/events) reads the outbox in commit-safe order: each row records
 * the id of the transaction that wrote it, by a column default, so no write path changes. The
 * column is added without a default first (no table rewrite: the existing rows stay null and
 * come before every cursor), then given its default for the rows written from now on.
 */
export class Migration20261128110000_outbox_feed_cursor extends Migration {

  override name = 'Migration20261128110000_outbox_feed_cursor';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" add column "txid" xid8 null;`);
    this.addSql(`alter table "outbox_events" alter column "txid" set default pg_current_xact_id();`);
    this.addSql(`create index "outbox_events_feed_idx" on "outbox_events" ("txid", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "outbox_events_feed_idx";`);
    this.addSql(`alter table "outbox_events" drop column if exists "txid";`);
  }

}
