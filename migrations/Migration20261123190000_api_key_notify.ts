import { Migration } from '@mikro-orm/migrations';

/** Every change to an API key row notifies deskflow_api_keys with its lookup, so API processes drop it from memory at once. */
export class Migration20261123190000_api_key_notify extends Migration {

  override name = 'Migration20261123190000_api_key_notify';

  override up(): void | Promise<void> {
    this.addSql(`create function "deskflow_notify_api_key"() returns trigger language plpgsql as $$ begin perform pg_notify('deskflow_api_keys', old.lookup); return null; end $$;`);
    this.addSql(`create trigger "api_keys_notify" after update or delete on "api_keys" for each row execute function "deskflow_notify_api_key"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "api_keys_notify" on "api_keys";`);
    this.addSql(`drop function if exists "deskflow_notify_api_key"();`);
  }

}
