import { Migration } from '@mikro-orm/migrations';

/** Each workflow keeps its execution count and last trigger time, so listing workflows reads no executions. */
export class Migration20261123160000_workflow_counters extends Migration {

  override name = 'Migration20261123160000_workflow_counters';

  override up(): void | Promise<void> {
    this.addSql(`alter table "workflows" add "execution_count" int not null default 0, add "last_triggered_at" timestamptz(3) null;`);
    this.addSql(`update "workflows" w set "execution_count" = s."count", "last_triggered_at" = s."last" from (select "workflow_id", count(*) as "count", max("started_at") as "last" from "executions" group by "workflow_id") s where s."workflow_id" = w."id";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "workflows" drop column "execution_count", drop column "last_triggered_at";`);
  }

}
