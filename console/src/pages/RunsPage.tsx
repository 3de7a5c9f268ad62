import { useCallback, useEffect, useState } from 'react';
import { api, type Execution, type Workflow } from '../api.ts';
import { duration } from '../model/overlay.ts';
import { runCount, runStatusText, tookNoAction } from '../model/run-words.ts';
import { href } from '../router.ts';
import { ErrorBanner, Loading, StatusBadge, Time } from '../ui/common.tsx';
import { TicketName, useTicketSubjects } from '../ui/tickets.tsx';

const STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'];
const PAGE = 25;

/** A workflow's executions, newest first, by status, a page at a time (the API's `before` cursor). */
export function RunsPage({ workflowId }: { workflowId: string }) {
  const [workflow, setWorkflow] = useState<Workflow | null>(null);
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const [executions, setExecutions] = useState<Execution[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const before = cursors[cursors.length - 1];

  useEffect(() => {
    api.getWorkflow(workflowId).then(({ workflow }) => setWorkflow(workflow), setError);
  }, [workflowId]);

  const load = useCallback(async () => {
    try {
      setExecutions(await api.listExecutions(workflowId, { status: status || undefined, before, limit: PAGE }));
    } catch (err) {
      setError(err);
    }
  }, [workflowId, status, before]);
  useEffect(() => {
    void load();
    // The first page follows new runs as they come and go.
    if (before) return;
    const timer = setInterval(() => void load(), 3000);
    return () => clearInterval(timer);
  }, [load, before]);

  return (
    <section className="page">
      <div className="page-head">
        <h1>
          Runs of <span className="user-text">{workflow?.name ?? '…'}</span>
        </h1>
        <div className="toolbar">
          <label>
            Status{' '}
            <select name="status" value={status} onChange={(e) => { setStatus(e.target.value); setCursors([]); }}>
              <option value="">any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>{s}</option>
              ))}
            </select>
          </label>
          <a href={href.editor(workflowId)}>Edit the workflow</a>
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {executions === null ? (
        <Loading />
      ) : executions.length === 0 ? (
        <p className="muted">{before ? 'No older runs.' : 'No runs yet.'}</p>
      ) : (
        <>
          <p className="muted small" data-testid="run-count">{runCount(executions, executions.length === PAGE)} on this page.</p>
          <ExecutionTable executions={executions} />
        </>
      )}
      <div className="buttons">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors([])}>Newest</button>
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
        <button type="button" data-action="older" disabled={!executions || executions.length < PAGE} onClick={() => executions && setCursors([...cursors, executions[executions.length - 1].id])}>
          Older
        </button>
      </div>
    </section>
  );
}

/** Runs, newest first: those that took no action say so; tickets are named by subject. */
export function ExecutionTable({ executions, workflowNames }: { executions: Execution[]; workflowNames?: ReadonlyMap<string, string> }) {
  const subjects = useTicketSubjects(executions.map((e) => e.ticketId));
  return (
    <table className="list" data-testid="executions">
      <thead>
        <tr>
          <th>Started</th>
          {workflowNames && <th>Workflow</th>}
          <th>Status</th>
          <th>Triggered by</th>
          <th>Ticket</th>
          <th>Took</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {executions.map((e) => (
          <tr key={e.id} data-execution-id={e.id} data-status={e.status} data-acted={String(!tookNoAction(e))}>
            <td>
              <a href={href.run(e.workflowId, e.id)}>
                <Time at={e.startedAt} />
              </a>
            </td>
            {workflowNames && <td className="user-text">{workflowNames.get(e.workflowId) ?? e.workflowId}</td>}
            <td><RunStatus execution={e} /></td>
            <td><code>{e.triggeredBy}</code></td>
            <td>{e.ticketId ? <TicketName id={e.ticketId} subjects={subjects} /> : <span className="muted">none</span>}</td>
            <td>{duration(e.startedAt, e.completedAt) ?? ''}</td>
            <td className="error-text">{e.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A run's status badge; "no action" for a run that completed without doing anything. */
export function RunStatus({ execution }: { execution: Pick<Execution, 'status' | 'steps'> }) {
  if (!tookNoAction(execution)) return <StatusBadge status={execution.status} />;
  return <span className="badge status-no_action" data-status={execution.status}>{runStatusText(execution)}</span>;
}
