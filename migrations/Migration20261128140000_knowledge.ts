import { Migration } from '@mikro-orm/migrations';

/** Knowledge: a workspace's articles, kept searchable by PostgreSQL full-text search (title weighted over body). */
export class Migration20261128140000_knowledge extends Migration {

  override name = 'Migration20261128140000_knowledge';

  override up(): void | Promise<void> {
    this.addSql(`create table "knowledge_articles" ("id" uuid not null, "created_at" timestamptz(3) not null, "workspace_id" uuid not null, "title" text not null, "body" text not null, "language" varchar(3) null, "tags" text[] not null default '{}', "search_config" regconfig not null, "search" tsvector generated always as (setweight(to_tsvector(search_config, title), 'A'::"char") || setweight(to_tsvector(search_config, body), 'B'::"char")) stored null, "updated_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "knowledge_articles_workspace_created_idx" on "knowledge_articles" ("workspace_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "knowledge_articles_search_idx" on "knowledge_articles" using gin ("search");`);
    this.addSql(`alter table "knowledge_articles" add constraint "knowledge_articles_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "knowledge_articles" cascade;`);
  }

}
