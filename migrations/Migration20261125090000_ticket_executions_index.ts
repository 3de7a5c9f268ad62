import { Migration } from '@mikro-orm/migrations';

/** A ticket's executions of every workflow, newest first, read by GET /api/v1/tickets/:id/executions without a scan. */
export class Migration20261125090000_ticket_executions_index extends Migration {

  override name = 'Migration20261125090000_ticket_executions_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "executions_ticket_started_idx" on "executions" ("ticket_id", "started_at" desc, "id" desc) where "ticket_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "executions_ticket_started_idx";`);
  }

}
