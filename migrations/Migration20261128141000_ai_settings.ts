import { Migration } from '@mikro-orm/migrations';

/** The AI owner's settings, one row per workspace that changed them (off until turned on). */
export class Migration20261128141000_ai_settings extends Migration {

  override name = 'Migration20261128141000_ai_settings';

  override up(): void | Promise<void> {
    this.addSql(`create table "ai_settings" ("workspace_id" uuid not null, "enabled" boolean not null default false, "model_base_url" text null, "model_name" varchar(200) null, "model_api_key_sealed" text null, "instructions" text not null default '', "handoff_to" varchar(200) null, "min_score" double precision not null default 0.3, "max_replies_per_ticket" int not null default 3, "auto_send" boolean not null default true, "sender_name" varchar(200) not null default 'AI assistant', "updated_at" timestamptz(3) not null, primary key ("workspace_id"));`);
    this.addSql(`alter table "ai_settings" add constraint "ai_settings_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ai_settings" cascade;`);
  }

}
