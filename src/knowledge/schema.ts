import { z } from 'zod';
import { queryInteger, queryParam, text } from '../http/validate.ts';

export const MAX_TAGS = 50;
export const MAX_QUERY = 500;

const title = text({ min: 1, max: 300, nonBlank: true, label: 'title' });
const body = text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }).meta({ description: 'Markdown.' });

/** As tickets spell it: two or three lowercase letters. */
const LANGUAGE_RULE = 'language must be a two- or three-letter lowercase code such as "en" or "deu".';
export const languageCode = z
  .string({ error: () => 'language must be a string.' })
  .regex(/^[a-z]{2,3}$/, LANGUAGE_RULE)
  .meta({ description: 'As tickets spell it (`en`, `deu`, …): it chooses the stemming and stop words of the search.', example: 'en' });

const tag = text({ min: 1, max: 100, nonBlank: true, label: 'each tag' }).transform((t) => t.trim());
const tags = z
  .array(tag, { error: () => 'tags must be a list of strings.' })
  .max(MAX_TAGS, `tags may list at most ${MAX_TAGS} tags.`)
  .transform((list) => [...new Set(list)])
  .meta({ description: `Up to ${MAX_TAGS}; each 1-100 characters, kept once.` });

export const createArticleBody = z.strictObject({
  title,
  body,
  language: languageCode.nullable().optional().meta({ description: 'Default: none (searched word for word).' }),
  tags: tags.optional().meta({ description: 'Default: none.' }),
});
export type CreateArticleInput = z.infer<typeof createArticleBody>;

export const updateArticleBody = z
  .strictObject({
    title: title.optional(),
    body: body.optional(),
    language: languageCode.nullable().optional(),
    tags: tags.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one of title, body, language, tags.' });
export type UpdateArticleInput = z.infer<typeof updateArticleBody>;

export const searchQuery = z.object({
  q: z
    .string({ error: (i) => (i.input === undefined ? 'q is required.' : 'q must be given once.') })
    .check((ctx) => {
      const n = [...ctx.value].length;
      if (ctx.value.trim() === '') ctx.issues.push({ code: 'custom', input: ctx.value, message: 'q must not be blank.' });
      else if (n > MAX_QUERY) ctx.issues.push({ code: 'custom', input: ctx.value, message: `q must be at most ${MAX_QUERY} characters (got ${n}).` });
    })
    .meta({ description: 'Words to find, as in a web search: all of them must occur; `"a phrase"`, `or`, `-word` work too.', example: 'reset password' }),
  language: queryParam('language').pipe(languageCode).optional().meta({ description: 'Only articles in this language.' }),
  limit: queryInteger('limit', { min: 1, max: 50 }).default(10),
});
export type SearchQuery = z.infer<typeof searchQuery>;
