import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findOr404 } from '../common/find-or-404.ts';
import { KnowledgeArticle } from './entity.ts';
import { textSearchConfig } from './languages.ts';
import type { CreateArticleInput, SearchQuery, UpdateArticleInput } from './schema.ts';
import { searchArticles, type ArticleMatch } from './search.ts';

/** The articles of a workspace's knowledge (docs/ai.md, "Knowledge"). */
export class KnowledgeService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async create(workspaceId: string, input: CreateArticleInput): Promise<KnowledgeArticle> {
    const language = input.language ?? null;
    const article = this.em.create(KnowledgeArticle, {
      workspace: workspaceId,
      title: input.title,
      body: input.body,
      language,
      tags: input.tags ?? [],
      searchConfig: textSearchConfig(language),
    });
    await this.em.flush();
    return article;
  }

  async get(workspaceId: string, articleId: string): Promise<KnowledgeArticle> {
    return findOr404(this.em, KnowledgeArticle, articleId, { workspace: workspaceId }, 'Article');
  }

  /** Newest first. */
  async list(workspaceId: string): Promise<KnowledgeArticle[]> {
    return this.em.find(KnowledgeArticle, { workspace: workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  }

  /** Replaces the fields given; PostgreSQL keeps the article's search document in step. */
  async update(workspaceId: string, articleId: string, input: UpdateArticleInput): Promise<KnowledgeArticle> {
    return this.em.transactional(async (em) => {
      const article = await findOr404(em, KnowledgeArticle, articleId, { workspace: workspaceId }, 'Article', { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (input.title !== undefined) article.title = input.title;
      if (input.body !== undefined) article.body = input.body;
      if (input.language !== undefined) {
        article.language = input.language;
        article.searchConfig = textSearchConfig(input.language);
      }
      if (input.tags !== undefined) article.tags = input.tags;
      article.updatedAt = new Date();
      return article;
    });
  }

  async delete(workspaceId: string, articleId: string): Promise<void> {
    const article = await this.get(workspaceId, articleId);
    await this.em.remove(article).flush();
  }

  async search(workspaceId: string, query: SearchQuery): Promise<ArticleMatch[]> {
    return searchArticles(this.em, workspaceId, query);
  }
}
