import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { articleEnvelope, articleList, presentArticle, presentMatch, searchResults } from './presenter.ts';
import { createArticleBody, searchQuery, updateArticleBody } from './schema.ts';

/** The knowledge of the key's workspace: articles the AI owner answers from; mounted under /api/knowledge, behind the API key (app.ts). */
export function knowledgeRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listArticles',
    summary: 'List knowledge articles',
    tag: 'Knowledge',
    responses: { 200: { description: 'The articles, newest first.', schema: articleList } },
  });
  router.get('/', list, async (ctx) => {
    const articles = await ctx.state.services.knowledge.list(ctx.state.workspaceId);
    ctx.body = { articles: articles.map(presentArticle) };
  });

  const create = operation({
    operationId: 'createArticle',
    summary: 'Create a knowledge article',
    description: 'An article the AI owner may answer customers with (docs/ai.md). Its language chooses the stemming and stop words of the search.',
    tag: 'Knowledge',
    body: createArticleBody,
    responses: { 201: { description: 'The new article.', schema: articleEnvelope } },
  });
  router.post('/', create, jsonBody(MiB), async (ctx) => {
    const article = await ctx.state.services.knowledge.create(ctx.state.workspaceId, create.body(ctx));
    ctx.status = 201;
    ctx.body = { article: presentArticle(article) };
  });

  // Before /:id, which would take `search` for an id.
  const search = operation({
    operationId: 'searchArticles',
    summary: 'Search the knowledge',
    description:
      'PostgreSQL full-text search over titles and bodies (a word of the title weighs more than one of the body), in each article’s language; best first, with `ts_rank` scores (what the AI owner’s `minScore` compares with) and excerpts.',
    tag: 'Knowledge',
    query: searchQuery,
    responses: { 200: { description: 'The articles found, best first.', schema: searchResults } },
  });
  router.get('/search', search, async (ctx) => {
    const matches = await ctx.state.services.knowledge.search(ctx.state.workspaceId, search.query(ctx));
    ctx.body = { results: matches.map(presentMatch) };
  });

  const get = operation({
    operationId: 'getArticle',
    summary: 'Get a knowledge article',
    tag: 'Knowledge',
    responses: { 200: { description: 'The article.', schema: articleEnvelope } },
  });
  router.get('/:id', get, async (ctx) => {
    const article = await ctx.state.services.knowledge.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { article: presentArticle(article) };
  });

  const update = operation({
    operationId: 'updateArticle',
    summary: 'Update a knowledge article',
    description: 'Replaces the fields given (`tags` as a whole list); the search sees the change at once.',
    tag: 'Knowledge',
    body: updateArticleBody,
    responses: { 200: { description: 'The article after the update.', schema: articleEnvelope } },
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { knowledge } = ctx.state.services;
    await knowledge.get(ctx.state.workspaceId, ctx.params.id);
    const article = await knowledge.update(ctx.state.workspaceId, ctx.params.id, update.body(ctx));
    ctx.body = { article: presentArticle(article) };
  });

  const remove = operation({
    operationId: 'deleteArticle',
    summary: 'Delete a knowledge article',
    description: 'The AI owner no longer finds it; turns that cited it keep its id.',
    tag: 'Knowledge',
    responses: { 204: { description: 'Deleted.' } },
  });
  router.delete('/:id', remove, async (ctx) => {
    await ctx.state.services.knowledge.delete(ctx.state.workspaceId, ctx.params.id);
    ctx.status = 204;
  });

  return router;
}
