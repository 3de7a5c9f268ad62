import { useCallback, useEffect, useState } from 'react';
import { api, type Execution, type Message, type Ticket } from '../api.ts';
import { ErrorBanner, Loading, StatusBadge, Time } from '../ui/common.tsx';
import { SlaClocks } from '../ui/SlaClocks.tsx';
import { ExecutionTable } from './RunsPage.tsx';

const RUNS_PAGE = 25;

/** A ticket's story: its messages, and every automation run on it, each opening on its graph. */
export function TicketPage({ ticketId }: { ticketId: string }) {
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [messages, setMessages] = useState<{ data: Message[]; total: number; truncated: boolean } | null>(null);
  const [runs, setRuns] = useState<Execution[] | null>(null);
  const [moreRuns, setMoreRuns] = useState(false);
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      const [t, m, r, w] = await Promise.all([
        api.getTicket(ticketId),
        api.listMessages(ticketId, { limit: 100 }),
        api.ticketExecutions(ticketId, { limit: RUNS_PAGE }),
        api.listWorkflows(),
      ]);
      setTicket(t);
      setMessages(m);
      setRuns(r);
      setMoreRuns(r.length === RUNS_PAGE);
      setNames(new Map(w.map((x) => [x.id, x.name])));
    } catch (err) {
      setError(err);
    }
  }, [ticketId]);
  useEffect(() => {
    void load();
  }, [load]);

  const olderMessages = async () => {
    if (!messages || messages.data.length === 0) return;
    const older = await api.listMessages(ticketId, { limit: 100, before: messages.data[0].id });
    setMessages({ data: [...older.data, ...messages.data], total: older.total, truncated: older.truncated });
  };
  const olderRuns = async () => {
    if (!runs || runs.length === 0) return;
    const older = await api.ticketExecutions(ticketId, { limit: RUNS_PAGE, before: runs[runs.length - 1].id });
    setRuns([...runs, ...older]);
    setMoreRuns(older.length === RUNS_PAGE);
  };

  if (error && !ticket) return <ErrorBanner error={error} />;
  if (!ticket || !messages || !runs) return <Loading />;
  return (
    <section className="page ticket">
      <div className="page-head">
        <h1 className="user-text">{ticket.subject}</h1>
        <div className="toolbar">
          <StatusBadge status={ticket.status} /> <span>priority {ticket.priority}</span>
          {ticket.tags.map((t) => (
            <span key={t} className="tag user-text">{t}</span>
          ))}
        </div>
      </div>
      <p className="muted">
        <span className="user-text">{ticket.customerName ?? ''}</span> &lt;<span className="user-text">{ticket.customerEmail}</span>&gt; · opened <Time at={ticket.createdAt} />
        {ticket.assignedTo && <> · assigned to <span className="user-text">{ticket.assignedTo}</span></>}
      </p>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      <SlaClocks ticketId={ticketId} />
      <div className="two-columns">
        <div>
          <h2>Messages ({messages.total})</h2>
          {messages.truncated && <button type="button" className="link" onClick={() => void olderMessages()}>Show older messages</button>}
          <ol className="messages" data-testid="messages">
            {messages.data.map((m) => (
              <li key={m.id} className={`message ${m.direction}`}>
                <div className="muted small">
                  <span className="user-text">{m.senderName ?? m.senderEmail}</span> · {m.direction} · <Time at={m.createdAt} />
                </div>
                <div className="message-body">{m.body}</div>
              </li>
            ))}
          </ol>
        </div>
        <div>
          <h2>Automation runs</h2>
          {runs.length === 0 ? <p className="muted">No automation has run on this ticket.</p> : <ExecutionTable executions={runs} workflowNames={names} />}
          {moreRuns && <button type="button" className="link" onClick={() => void olderRuns()}>Older runs</button>}
        </div>
      </div>
    </section>
  );
}
