import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's insert trigger notifies the relays only for connections that do not do it
 * themselves: Deskflow's own connections set `deskflow.outbox_notify = after-commit` and notify
 * once their writes have committed (src/common/commit-signals.ts). A transaction that notifies
 * holds one database-wide lock through its commit, so commits of new events were flushed one
 * after the other; now they are flushed together. Writers that do not set it (processes of the
 * previous release during a rolling upgrade, psql) are notified for as before.
 */
export class Migration20261127090000_outbox_notify_after_commit extends Migration {

  override name = 'Migration20261127090000_outbox_notify_after_commit';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "deskflow_notify_outbox"() returns trigger language plpgsql as $$
begin
  if current_setting('deskflow.outbox_notify', true) is distinct from 'after-commit' then
    perform pg_notify('deskflow_outbox', '');
  end if;
  return null;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create or replace function "deskflow_notify_outbox"() returns trigger language plpgsql as $$ begin perform pg_notify('deskflow_outbox', ''); return null; end $$;`);
  }

}
