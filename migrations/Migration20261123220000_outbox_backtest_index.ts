import { Migration } from '@mikro-orm/migrations';

/**
 * Backtests replay a workspace's recorded events of one trigger type over a time window,
 * oldest first, in keyset pages of (created_at, id): this index makes each page one range read.
 */
export class Migration20261123220000_outbox_backtest_index extends Migration {

  override name = 'Migration20261123220000_outbox_backtest_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "outbox_events_workspace_type_created_idx" on "outbox_events" ("workspace_id", "type", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "outbox_events_workspace_type_created_idx";`);
  }

}
