import { useEffect, useState, type FormEvent } from 'react';
import { api, type KnowledgeArticle, type KnowledgeSearchResult } from '../api.ts';
import { href } from '../router.ts';
import { Dialog, ErrorBanner, Loading, Time } from '../ui/common.tsx';

/** The workspace's knowledge: the articles the AI owner answers customers from, and their search. */
export function KnowledgePage() {
  const [list, setList] = useState<KnowledgeArticle[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<KnowledgeArticle | null>(null);
  const load = () =>
    api.listArticles().then(
      (articles) => setList(articles),
      (err: unknown) => setError(err),
    );
  useEffect(() => {
    void load();
  }, []);
  return (
    <section className="page">
      <div className="page-head">
        <h1>Knowledge</h1>
        <div className="toolbar">
          <a className="button primary" href={href.newArticle()} data-action="new-article">New article</a>
        </div>
      </div>
      <p className="muted">
        The articles the AI owner answers customers from (see <a href={href.ai()}>AI owner</a>). Give each its language: the search stems words and skips stop words in it.
      </p>
      <SearchBox />
      <ErrorBanner error={error} />
      {list === null ? (
        error ? null : <Loading />
      ) : list.length === 0 ? (
        <p className="muted" data-testid="no-articles">No articles yet. Write down what customers ask most, one answer per article.</p>
      ) : (
        <table className="list" data-testid="article-list">
          <thead>
            <tr>
              <th>Title</th>
              <th>Language</th>
              <th>Tags</th>
              <th>Changed</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((a) => (
              <tr key={a.id} data-article-id={a.id}>
                <td><a className="user-text" href={href.article(a.id)}>{a.title}</a></td>
                <td>{a.language ? <code>{a.language}</code> : <span className="muted">none</span>}</td>
                <td className="user-text">{a.tags.join(', ')}</td>
                <td><Time at={a.updatedAt} /></td>
                <td className="actions">
                  <a href={href.article(a.id)}>Edit</a>
                  <button type="button" className="link danger" onClick={() => setDeleting(a)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && <DeleteArticleDialog article={deleting} onClose={() => setDeleting(null)} onDeleted={() => { setDeleting(null); void load(); }} />}
    </section>
  );
}

/** Tries the search the owner relies on: the articles a question finds, best first, with their scores. */
function SearchBox() {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<KnowledgeSearchResult[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const search = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      setResults(await api.searchArticles(q));
    } catch (err) {
      setError(err);
      setResults(null);
    }
  };
  return (
    <form className="knowledge-search" onSubmit={search} data-testid="knowledge-search">
      <label>
        Search
        <input name="q" type="search" value={q} maxLength={500} placeholder="reset password" onChange={(e) => setQ(e.target.value)} />
      </label>
      <button type="submit" disabled={q.trim() === ''}>Search</button>
      <ErrorBanner error={error} />
      {results && (
        <ol className="search-results" data-testid="search-results">
          {results.length === 0 && <li className="muted">Nothing found.</li>}
          {results.map((r) => (
            <li key={r.article.id}>
              <a className="user-text" href={href.article(r.article.id)}>{r.article.title}</a> <span className="muted small">score {r.score}</span>
              <p className="user-text small">{r.excerpt}</p>
            </li>
          ))}
        </ol>
      )}
    </form>
  );
}

export function DeleteArticleDialog({ article, onClose, onDeleted }: { article: KnowledgeArticle; onClose: () => void; onDeleted: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await api.deleteArticle(article.id);
      onDeleted();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Delete this article?" onClose={onClose}>
      <p>
        <strong className="user-text">{article.title}</strong> will be gone: the AI owner no longer finds it. Turns that cited it keep its id.
      </p>
      <ErrorBanner error={error} />
      <div className="buttons">
        <button type="button" onClick={onClose}>Keep it</button>
        <button type="button" className="danger" data-action="delete-article" disabled={busy} onClick={() => void remove()}>Delete</button>
      </div>
    </Dialog>
  );
}
