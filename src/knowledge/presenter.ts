import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import type { KnowledgeArticle } from './entity.ts';
import type { ArticleMatch } from './search.ts';

/** An article as every answer shows it. */
export const publicArticle = z
  .strictObject({
    id: uuid(),
    title: z.string(),
    body: z.string().meta({ description: 'Markdown.' }),
    language: z.string().nullable(),
    tags: z.array(z.string()),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'KnowledgeArticle' });
export type PublicArticle = z.output<typeof publicArticle>;

export const articleEnvelope = z.strictObject({ article: publicArticle });
export const articleList = z.strictObject({ articles: z.array(publicArticle).meta({ description: 'Newest first.' }) });

export const searchResult = z
  .strictObject({
    article: z.strictObject({ id: uuid(), title: z.string() }),
    score: z.number().meta({ description: 'PostgreSQL `ts_rank`: higher is better; words of the title weigh 2.5 times those of the body.' }),
    excerpt: z.string().meta({ description: 'Where the body matched, the words found between `**`.' }),
  })
  .meta({ id: 'KnowledgeSearchResult' });
export const searchResults = z.strictObject({ results: z.array(searchResult).meta({ description: 'Best first.' }) });

export function presentArticle(a: KnowledgeArticle): PublicArticle {
  return {
    id: a.id,
    title: a.title,
    body: a.body,
    language: a.language ?? null,
    tags: a.tags,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

/** Scores rounded to 4 places: what tells matches apart, without float noise. */
export const roundScore = (score: number) => Math.round(score * 10_000) / 10_000;

export function presentMatch(m: ArticleMatch): z.output<typeof searchResult> {
  return { article: { id: m.id, title: m.title }, score: roundScore(m.score), excerpt: m.excerpt };
}
