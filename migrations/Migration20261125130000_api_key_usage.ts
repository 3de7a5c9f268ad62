import { Migration } from '@mikro-orm/migrations';

/**
 * When each API key was last used (`key list` shows it), in a table of its own: an update of
 * api_keys notifies every API process to drop the key from memory, which a use must not do.
 */
export class Migration20261125130000_api_key_usage extends Migration {

  override name = 'Migration20261125130000_api_key_usage';

  override up(): void | Promise<void> {
    this.addSql(`create table "api_key_usage" ("key_id" uuid not null, "last_used_at" timestamptz(3) not null, primary key ("key_id"));`);
    this.addSql(`alter table "api_key_usage" add constraint "api_key_usage_key_id_foreign" foreign key ("key_id") references "api_keys" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "api_key_usage" cascade;`);
  }

}
