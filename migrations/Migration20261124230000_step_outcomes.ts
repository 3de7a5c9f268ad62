import { Migration } from '@mikro-orm/migrations';

/**
 * Steps that tell the whole story of a run that ended early: `cancelled` (a wait cut short) and
 * `not_reached` (a node the run never came to). Widens the allowed values only: rows written by
 * earlier releases stay valid, and earlier releases keep writing what they wrote.
 */
export class Migration20261124230000_step_outcomes extends Migration {

  override name = 'Migration20261124230000_step_outcomes';

  override up(): void | Promise<void> {
    this.addSql(`alter table "execution_steps" drop constraint if exists "execution_steps_status_check";`);
    this.addSql(`alter table "execution_steps" add constraint "execution_steps_status_check" check ("status" in ('passed', 'completed', 'failed', 'waiting', 'running', 'cancelled', 'not_reached'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "execution_steps" drop constraint if exists "execution_steps_status_check";`);
    this.addSql(`alter table "execution_steps" add constraint "execution_steps_status_check" check ("status" in ('passed', 'completed', 'failed', 'waiting', 'running'));`);
  }

}
