import { Migration } from '@mikro-orm/migrations';

/**
 * Finished executions are purged after EXECUTION_RETENTION_DAYS, oldest first: each purge batch
 * is one range read of this index, however large the table. GET /metrics reports the age of the
 * oldest pending execution from the second, which holds only pending rows.
 */
export class Migration20261125120000_execution_retention extends Migration {

  override name = 'Migration20261125120000_execution_retention';

  override up(): void | Promise<void> {
    this.addSql(`create index "executions_finished_idx" on "executions" ("completed_at") where "status" in ('completed', 'failed', 'cancelled');`);
    this.addSql(`create index "executions_pending_idx" on "executions" ("started_at") where "status" = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "executions_finished_idx";`);
    this.addSql(`drop index if exists "executions_pending_idx";`);
  }

}
