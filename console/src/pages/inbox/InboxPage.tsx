import { useEffect, useMemo, useRef, useState, type FormEvent, type RefObject } from 'react';
import { DEFAULT_VIEW, removeView, sameFilter, saveView, type TicketFilter, type View } from '../../model/inbox.ts';
import { moveCursor } from '../../model/shortcuts.ts';
import { href, navigate } from '../../router.ts';
import { Dialog, ErrorBanner, Loading } from '../../ui/common.tsx';
import { useMe } from '../../ui/me.tsx';
import { useShortcuts } from '../../ui/shortcuts.ts';
import { FilterBar } from './FilterBar.tsx';
import { TicketTable } from './TicketTable.tsx';
import { PER_PAGE, useTicketList, useViewCounts, useViews } from './useInbox.ts';

const LAST_VIEW = 'deskflow.inboxView';

/**
 * The inbox: the views on the left with their counts (built in, and saved in this browser), the
 * search box and filters, and the tickets of the view, following the live feed. Keys: j/k move,
 * Enter or o opens, / searches.
 */
export function InboxPage({ viewId, focusSearch }: { viewId: string | null; focusSearch?: boolean }) {
  const { me, members } = useMe();
  const { views, saved, setSaved } = useViews();
  const view = views.find((v) => v.id === (viewId ?? sessionStorage.getItem(LAST_VIEW) ?? DEFAULT_VIEW)) ?? views[0];
  useEffect(() => sessionStorage.setItem(LAST_VIEW, view.id), [view.id]);
  // The filter as the agent changed it from the view's own (cleared with another view).
  const [edited, setEdited] = useState<{ viewId: string; filter: TicketFilter } | null>(null);
  const filter = edited?.viewId === view.id ? edited.filter : view.filter;
  const [page, setPage] = useState(1);
  const change = (next: TicketFilter) => {
    setEdited({ viewId: view.id, filter: next });
    setPage(1);
  };
  const list = useTicketList(filter, me, page);
  const counts = useViewCounts(views, me);
  const [saving, setSaving] = useState(false);
  const search = useRef<HTMLInputElement>(null);
  const cursor = useListKeys(list.rows?.length ?? 0, search, view.id, page);
  useEffect(() => {
    if (focusSearch) search.current?.focus();
  }, [focusSearch]);

  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const changed = !sameFilter(filter, view.filter);
  return (
    <section className="page inbox">
      <nav className="views" aria-label="Views">
        <h2 className="small muted">Views</h2>
        <ul>
          {views.map((v) => (
            <li key={v.id}>
              <a href={href.inbox(v.id)} aria-current={v.id === view.id ? 'page' : undefined} data-view={v.id} className="user-text">
                {v.name} <span className="count" data-testid={`count-${v.id}`}>{countText(counts.get(v.id))}</span>
              </a>
              {v.saved && (
                <button type="button" className="link" aria-label={`Delete the view ${v.name}`} onClick={() => deleteView(v)}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      </nav>
      <div className="inbox-main">
        <div className="page-head">
          <h1 className="user-text">{view.name}</h1>
          <form role="search" className="toolbar" onSubmit={(e: FormEvent) => e.preventDefault()}>
            <input ref={search} type="search" name="q" aria-label="Search tickets (press / to come here)" placeholder="Search tickets…  /" value={filter.q ?? ''} onChange={(e) => change({ ...filter, q: e.target.value })} />
          </form>
        </div>
        <div className="toolbar">
          <FilterBar key={view.id} filter={filter} onChange={change} members={members} me={me} />
          {changed && (
            <button type="button" className="link" onClick={() => setEdited(null)}>
              Clear the search and filters
            </button>
          )}
          <button type="button" data-action="save-view" onClick={() => setSaving(true)}>Save as a view…</button>
        </div>
        <ErrorBanner error={list.error} />
        {!list.rows ? (
          <Loading />
        ) : list.rows.length === 0 ? (
          <p className="muted" data-testid="no-tickets">{filter.q?.trim() ? `No ticket of this view matches "${filter.q.trim()}".` : 'No tickets here.'}</p>
        ) : (
          <TicketTable rows={list.rows} cursor={cursor} me={me} />
        )}
        <div className="buttons">
          <span className="muted small" aria-live="polite">{list.rows ? `${list.total} ticket${list.total === 1 ? '' : 's'}` : ''}</span>
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous page</button>
          <span className="muted">page {page} of {pages}</span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next page</button>
        </div>
      </div>
      {saving && <SaveViewDialog filter={filter} suggested={view.saved ? view.name : ''} onClose={() => setSaving(false)} onSave={save} />}
    </section>
  );

  function save(name: string) {
    const next = saveView(saved, name, filter, Math.random().toString(36).slice(2, 10));
    setSaved(next.views);
    setSaving(false);
    setEdited(null);
    navigate(href.inbox(next.id));
  }

  function deleteView(v: View) {
    if (!window.confirm(`Delete the view "${v.name}"? Its tickets stay as they are.`)) return;
    setSaved(removeView(saved, v.id));
    if (v.id === view.id) navigate(href.inbox(DEFAULT_VIEW));
  }
}

const countText = (n: number | null | undefined) => (n === undefined ? '…' : n === null ? '—' : String(n));

/**
 * j/k move the cursor over the rows (and the focus to the row's link, so Enter opens it), o
 * opens the row under the cursor, / goes to the search box. The cursor starts afresh on
 * another view or page.
 */
function useListKeys(count: number, search: RefObject<HTMLInputElement | null>, viewId: string, page: number): number | null {
  const [cursor, setCursor] = useState<number | null>(null);
  useEffect(() => setCursor(null), [viewId, page]);
  const row = (i: number) => document.querySelector<HTMLAnchorElement>(`a[data-row="${i}"]`);
  useShortcuts(['next', 'previous', 'open', 'search'], (command) => {
    if (command === 'search') return search.current?.focus();
    if (command === 'open') return cursor !== null && row(cursor)?.click();
    const next = moveCursor(cursor, count, command);
    setCursor(next);
    if (next !== null) row(next)?.focus();
  });
  return cursor === null || cursor < count ? cursor : null;
}

function SaveViewDialog({ filter, suggested, onClose, onSave }: { filter: TicketFilter; suggested: string; onClose: () => void; onSave: (name: string) => void }) {
  const [name, setName] = useState(suggested);
  const summary = useMemo(() => describeFilter(filter), [filter]);
  return (
    <Dialog title="Save as a view" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onSave(name);
        }}
      >
        <p className="muted small">Kept in this browser for this workspace key: {summary}.</p>
        <label>
          Name
          <input name="viewName" value={name} onChange={(e) => setName(e.target.value)} autoFocus required />
        </label>
        <div className="buttons">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={!name.trim()}>Save the view</button>
        </div>
      </form>
    </Dialog>
  );
}

/** "status open, priority high or urgent, words "refund"" for the dialog. */
function describeFilter(filter: TicketFilter): string {
  const parts: string[] = [];
  if (filter.q?.trim()) parts.push(`words "${filter.q.trim()}"`);
  if (filter.status) parts.push(`status ${filter.status}`);
  const lists: Array<[string, string[] | undefined]> = [
    ['assignee', filter.assignedTo?.map((a) => (a === '@me' ? 'me' : a === 'none' ? 'nobody' : a))],
    ['priority', filter.priority],
    ['tags', filter.tag],
    ['customer', filter.customerEmail],
    ['source', filter.source],
  ];
  for (const [name, values] of lists) if (values?.length) parts.push(`${name} ${values.join(name === 'tags' ? ' and ' : ' or ')}`);
  return parts.length > 0 ? parts.join(', ') : 'every ticket';
}
