import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { textSearchConfig } from './languages.ts';

/**
 * Searching a workspace's articles with PostgreSQL full-text search. Each article's document is
 * kept by PostgreSQL (the `search` column: its title weighted A over its body B, in its
 * language's configuration); a search runs one branch per configuration the workspace's
 * articles use, each with a constant query the GIN index answers, and ranks the matches with
 * ts_rank (title words count 2.5 times body words).
 */

/** A match: the article, its ts_rank score and where it matched (`**` around the words found). */
export type ArticleMatch = { id: string; title: string; body: string; language: string | null; score: number; excerpt: string };

const HEADLINE = 'StartSel=**, StopSel=**, MaxWords=35, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "';

/** The configurations the workspace's articles use (of `language` only, when given). */
async function configsOf(em: EntityManager, workspaceId: string, language: string | undefined): Promise<string[]> {
  if (language !== undefined) return [textSearchConfig(language)];
  const rows = await sql<{ config: string }>(em, 'select distinct "search_config"::text as "config" from "knowledge_articles" where "workspace_id" = $1', [workspaceId]);
  return rows.map((r) => r.config);
}

/**
 * One statement: per configuration, the articles whose document matches the query (made by
 * `queryOf` from parameter $2 and the configuration's parameter), best first.
 */
async function ranked(
  em: EntityManager,
  workspaceId: string,
  input: string | string[],
  configs: string[],
  opts: { language?: string; limit: number; queryOf: (config: string) => string },
): Promise<ArticleMatch[]> {
  if (configs.length === 0) return [];
  const parameters: unknown[] = [workspaceId, input, opts.limit];
  if (opts.language !== undefined) parameters.push(opts.language);
  const branches = configs.map((config) => {
    parameters.push(config);
    const cfg = `$${parameters.length}::regconfig`;
    return `select a."id", a."title", a."body", a."language", ts_rank(a."search", q."query") as "score", ts_headline(${cfg}, a."body", q."query", '${HEADLINE}') as "excerpt", a."updated_at"
              from "knowledge_articles" a, ${opts.queryOf(cfg)} as q("query")
             where a."workspace_id" = $1 and a."search_config" = ${cfg} and a."search" @@ q."query"${opts.language !== undefined ? ' and a."language" = $4' : ''}`;
  });
  const rows = await sql<ArticleMatch & { score: number | string }>(
    em,
    `select "id", "title", "body", "language", "score", "excerpt" from (${branches.join(' union all ')}) m order by "score" desc, "updated_at" desc, "id" limit $3`,
    parameters,
  );
  return rows.map((r) => ({ ...r, score: Number(r.score) }));
}

/** What a person typed, as in a web search (websearch_to_tsquery: every word, `"a phrase"`, `or`, `-word`); best first. */
export async function searchArticles(em: EntityManager, workspaceId: string, opts: { q: string; language?: string; limit: number }): Promise<ArticleMatch[]> {
  const configs = await configsOf(em, workspaceId, opts.language);
  return ranked(em, workspaceId, opts.q, configs, { ...opts, queryOf: (cfg) => `websearch_to_tsquery(${cfg}, $2)` });
}

/**
 * The articles that answer a customer's message, best first: in the message's language when the
 * workspace has articles in it, else among all. The message is not typed as a search: any of its
 * words may match, and only the words some article of the workspace contains make up the query,
 * so that a long message is not scored down for the words no article knows of (ts_rank divides
 * by the number of words of the query).
 */
export async function articlesForMessage(em: EntityManager, workspaceId: string, opts: { text: string; language: string | null; limit: number }): Promise<ArticleMatch[]> {
  const inLanguage = opts.language ? await sql(em, 'select 1 from "knowledge_articles" where "workspace_id" = $1 and "language" = $2 limit 1', [workspaceId, opts.language]) : [];
  const language = inLanguage.length > 0 ? opts.language! : undefined;
  const configs = await configsOf(em, workspaceId, language);
  const matches: ArticleMatch[] = [];
  for (const config of configs) {
    const known = await knownLexemes(em, workspaceId, config, opts.text, language);
    if (known.length === 0) continue;
    matches.push(...(await ranked(em, workspaceId, orQuery(known), [config], { language, limit: opts.limit, queryOf: () => '(select $2::tsquery)' })));
  }
  return matches.sort((a, b) => b.score - a.score).slice(0, opts.limit);
}

/** The words of `text` (as the configuration stems them) that some article of the workspace in that configuration contains. */
async function knownLexemes(em: EntityManager, workspaceId: string, config: string, text: string, language: string | undefined): Promise<string[]> {
  const words = await sql<{ lexeme: string }>(em, 'select unnest(tsvector_to_array(to_tsvector($1::regconfig, $2))) as "lexeme"', [config, text.slice(0, MAX_MESSAGE_TEXT)]);
  if (words.length === 0) return [];
  const lexemes = words.map((w) => w.lexeme);
  const rows = await sql<{ lexeme: string }>(
    em,
    `select w."lexeme" from unnest($3::text[], $4::text[]) as w("lexeme", "query")
      where exists (select 1 from "knowledge_articles" a
                     where a."workspace_id" = $1 and a."search_config" = $2::regconfig and a."search" @@ w."query"::tsquery${language !== undefined ? ' and a."language" = $5' : ''})`,
    [workspaceId, config, lexemes, lexemes.map((l) => orQuery([l])), ...(language !== undefined ? [language] : [])],
  );
  return rows.map((r) => r.lexeme);
}

/** How much of a message is searched (a message may be 100,000 characters; its start says what it is about). */
const MAX_MESSAGE_TEXT = 5_000;

/** `'a' | 'b'`: lexemes taken as they are (no second stemming), quoted as tsquery input quotes them. */
export function orQuery(lexemes: string[]): string {
  return lexemes.map((l) => `'${l.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' | ');
}
