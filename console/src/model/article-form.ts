// A knowledge article as its form edits it, and the input the API takes. Pure: no I/O, no DOM.
import type { ArticleInput, KnowledgeArticle } from '../api-types.ts';

export type ArticleForm = { title: string; body: string; language: string; tags: string };

export const emptyArticleForm = (): ArticleForm => ({ title: '', body: '', language: '', tags: '' });

export function articleForm(a: KnowledgeArticle): ArticleForm {
  return { title: a.title, body: a.body, language: a.language ?? '', tags: a.tags.join(', ') };
}

/** Tags are typed comma-separated; blanks are dropped, each kept once. A blank language is none. */
export function articleInput(form: ArticleForm): ArticleInput {
  const tags = [...new Set(form.tags.split(',').map((t) => t.trim()).filter(Boolean))];
  const language = form.language.trim().toLowerCase();
  return { title: form.title, body: form.body, language: language === '' ? null : language, tags };
}

export const isArticleDirty = (saved: ArticleForm, form: ArticleForm) => JSON.stringify(articleInput(saved)) !== JSON.stringify(articleInput(form));
