import { useEffect, useMemo, useState } from 'react';
import { api, type Ticket } from '../api.ts';
import { href } from '../router.ts';
import { ErrorBanner, Loading, StatusBadge, Time } from '../ui/common.tsx';

const STATUSES = ['open', 'pending', 'escalated', 'solved', 'closed'];
const PER_PAGE = 50;

/** The workspace's tickets, newest first; the subject filter works on the page shown (the API has no search). */
export function TicketsPage() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [answer, setAnswer] = useState<{ data: Ticket[]; total: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.listTickets({ page, perPage: PER_PAGE, status: status || undefined }).then((a) => setAnswer({ data: a.data, total: a.pagination.total }), setError);
  }, [page, status]);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return answer ? (q ? answer.data.filter((t) => t.subject.toLowerCase().includes(q)) : answer.data) : [];
  }, [answer, search]);
  const pages = answer ? Math.max(1, Math.ceil(answer.total / PER_PAGE)) : 1;
  return (
    <section className="page">
      <div className="page-head">
        <h1>Tickets</h1>
        <div className="toolbar">
          <input name="subjectSearch" placeholder="Subject contains…" value={search} onChange={(e) => setSearch(e.target.value)} />
          <select name="status" aria-label="Status" value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
            <option value="">any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>{s}</option>
            ))}
          </select>
        </div>
      </div>
      <ErrorBanner error={error} />
      {!answer ? (
        <Loading />
      ) : (
        <table className="list" data-testid="tickets">
          <thead>
            <tr>
              <th>Subject</th>
              <th>Status</th>
              <th>Priority</th>
              <th>Customer</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.id}>
                <td><a href={href.ticket(t.id)} className="user-text">{t.subject}</a></td>
                <td><StatusBadge status={t.status} /></td>
                <td>{t.priority}</td>
                <td className="user-text">{t.customerName ?? t.customerEmail}</td>
                <td><Time at={t.createdAt} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="buttons">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Newer</button>
        <span className="muted">page {page} of {pages}</span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Older</button>
      </div>
    </section>
  );
}
