import { Migration } from '@mikro-orm/migrations';

/** A waiting step shows when its wait ends (`until`), fixed when the wait begins. */
export class Migration20261125100000_step_until extends Migration {

  override name = 'Migration20261125100000_step_until';

  override up(): void | Promise<void> {
    this.addSql(`alter table "execution_steps" add "until" timestamptz(3) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "execution_steps" drop column "until";`);
  }

}
