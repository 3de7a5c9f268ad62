import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Workspace } from '../workspaces/entity.ts';

/**
 * An article of a workspace's knowledge (docs/ai.md): what the AI owner answers customers from.
 * `searchConfig` is the PostgreSQL text search configuration of its language (languages.ts);
 * `search` is the weighted document PostgreSQL keeps from it (title A, body B), searched through
 * its GIN index (search.ts).
 */
const KnowledgeArticleSchema = defineEntity({
  name: 'KnowledgeArticle',
  tableName: 'knowledge_articles',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    title: p.text(),
    /** Markdown, as given. */
    body: p.text(),
    language: p.string().length(3).nullable(),
    tags: p.array().default([]),
    searchConfig: p.string().columnType('regconfig'),
    search: p
      .string()
      .columnType('tsvector')
      .generated(`(setweight(to_tsvector(search_config, title), 'A'::"char") || setweight(to_tsvector(search_config, body), 'B'::"char")) stored`)
      .nullable()
      .lazy(),
    updatedAt: p.datetime(3).onCreate((a: { createdAt?: Date }) => a.createdAt ?? new Date()),
  },
  indexes: [
    { name: 'knowledge_articles_workspace_created_idx', expression: 'create index "knowledge_articles_workspace_created_idx" on "knowledge_articles" ("workspace_id", "created_at" desc, "id" desc)' },
    { name: 'knowledge_articles_search_idx', expression: 'create index "knowledge_articles_search_idx" on "knowledge_articles" using gin ("search")' },
  ],
});
export class KnowledgeArticle extends KnowledgeArticleSchema.class {}
KnowledgeArticleSchema.setClass(KnowledgeArticle);
