import { Migration } from '@mikro-orm/migrations';

/**
 * Delivered events are kept for OUTBOX_RETENTION_DAYS (backtests replay them), then purged by
 * the relay, oldest first: this index makes each purge batch one range read, however large
 * the table.
 */
export class Migration20261124100000_outbox_retention extends Migration {

  override name = 'Migration20261124100000_outbox_retention';

  override up(): void | Promise<void> {
    this.addSql(`create index "outbox_events_delivered_idx" on "outbox_events" ("created_at") where "delivered_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "outbox_events_delivered_idx";`);
  }

}
