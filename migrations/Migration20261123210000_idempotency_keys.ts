import { Migration } from '@mikro-orm/migrations';

/**
 * Clients' Idempotency-Keys per workspace, with the request each was first used for and the
 * answer it got; expired keys are found by created_at and purged in batches.
 */
export class Migration20261123210000_idempotency_keys extends Migration {

  override name = 'Migration20261123210000_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_keys" ("workspace_id" uuid not null, "key" varchar(255) not null, "method" varchar(10) not null, "path" text not null, "body_hash" varchar(64) not null, "response_status" smallint null, "response_body" text null, "created_at" timestamptz(3) not null, primary key ("workspace_id", "key"));`);
    this.addSql(`create index "idempotency_keys_created_at_idx" on "idempotency_keys" ("created_at");`);
    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
