import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, type KnowledgeArticle } from '../api.ts';
import { articleForm, articleInput, emptyArticleForm, isArticleDirty, type ArticleForm } from '../model/article-form.ts';
import { guardLeaving, href, navigate, useLeaveGuard } from '../router.ts';
import { ErrorBanner, Loading, NoticeBanner } from '../ui/common.tsx';
import { Field } from '../ui/Field.tsx';
import { DeleteArticleDialog } from './KnowledgePage.tsx';

/** A knowledge article written or changed: its title, language, tags and markdown body. */
export function ArticlePage({ articleId }: { articleId: string | null }) {
  const [article, setArticle] = useState<KnowledgeArticle | null>(null);
  const [saved, setSaved] = useState<ArticleForm | null>(articleId === null ? emptyArticleForm() : null);
  const [form, setForm] = useState<ArticleForm | null>(saved);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);

  useEffect(() => {
    if (articleId === null) return;
    api.getArticle(articleId).then(
      (a) => {
        setArticle(a);
        setSaved(articleForm(a));
        setForm(articleForm(a));
      },
      (err: unknown) => setError(err),
    );
  }, [articleId]);

  const dirty = saved !== null && form !== null && isArticleDirty(saved, form);
  useLeaveGuard(dirty, 'This article has unsaved changes. Leave without saving them?');
  if (!form) return error ? <ErrorBanner error={error} /> : <Loading />;

  const messages = (path: string) => (error instanceof ApiError ? error.details.filter((d) => d.path === path || d.path.startsWith(`${path}.`)).map((d) => d.message) : []);
  const set = (change: Partial<ArticleForm>) => setForm({ ...form, ...change });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const input = articleInput(form);
      const result = article ? await api.updateArticle(article.id, input) : await api.createArticle(input);
      setArticle(result);
      setSaved(articleForm(result));
      setForm(articleForm(result));
      if (!article) {
        guardLeaving(null);
        navigate(href.article(result.id));
      } else setNotice('Saved.');
    } catch (err) {
      setError(err instanceof ApiError ? new ApiError(err.status, err.code, `Not saved: ${err.message}`, err.details, null) : err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="page article-page">
      <div className="page-head">
        <h1>
          <a href={href.knowledge()}>Knowledge</a> · {article ? <span className="user-text">{article.title}</span> : 'New article'}
        </h1>
        <div className="toolbar">
          {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
          {article && <button type="button" className="danger" onClick={() => setDeleting(true)}>Delete</button>}
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      <NoticeBanner notice={notice} onClose={() => setNotice(null)} />
      <form className="article-form stack" onSubmit={save} data-testid="article-form">
        <Field label="Title" messages={messages('title')}>
          {(id) => <input id={id} name="title" value={form.title} maxLength={300} required onChange={(e) => set({ title: e.target.value })} />}
        </Field>
        <Field label="Language" messages={messages('language')} hint={<p className="muted small">Two or three letters, as tickets have it (en, de, fra); blank: none, words are matched as written.</p>}>
          {(id) => <input id={id} name="language" value={form.language} maxLength={3} size={4} onChange={(e) => set({ language: e.target.value })} />}
        </Field>
        <Field label="Tags" messages={messages('tags')} hint={<p className="muted small">Separated by commas.</p>}>
          {(id) => <input id={id} name="tags" value={form.tags} onChange={(e) => set({ tags: e.target.value })} />}
        </Field>
        <Field label="Body (markdown)" messages={messages('body')}>
          {(id) => <textarea id={id} name="body" value={form.body} rows={16} required onChange={(e) => set({ body: e.target.value })} />}
        </Field>
        <div className="buttons">
          <a href={href.knowledge()}>Back to the knowledge</a>
          <button type="submit" className="primary" data-action="save-article" disabled={busy || (article !== null && !dirty)}>
            {busy ? 'Saving…' : article ? 'Save' : 'Create'}
          </button>
        </div>
      </form>
      {deleting && article && (
        <DeleteArticleDialog
          article={article}
          onClose={() => setDeleting(false)}
          onDeleted={() => {
            guardLeaving(null);
            navigate(href.knowledge());
          }}
        />
      )}
    </section>
  );
}
