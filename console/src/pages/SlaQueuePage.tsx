import { useCallback, useEffect, useState } from 'react';
import { api, type SlaQueueItem } from '../api.ts';
import { METRIC_NAMES, SLA_METRICS, timeLeft } from '../model/sla-form.ts';
import { href } from '../router.ts';
import { ErrorBanner, Loading, StatusBadge, Time } from '../ui/common.tsx';
import { Field } from '../ui/Field.tsx';

const STATUSES = [
  { value: '', label: 'breached, warning and counting' },
  { value: 'breached', label: 'breached' },
  { value: 'warning', label: 'in warning' },
  { value: 'active', label: 'counting' },
];

/** What breaks next: the running clocks of the workspace's tickets, nearest due first, each opening on its ticket. */
export function SlaQueuePage() {
  const [status, setStatus] = useState('');
  const [metric, setMetric] = useState('');
  const [list, setList] = useState<SlaQueueItem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [now, setNow] = useState(() => Date.now());
  const load = useCallback(async () => {
    try {
      setList(await api.slaQueue({ status, metric, limit: 100 }));
      setError(null);
      setNow(Date.now());
    } catch (err) {
      setError(err);
    }
  }, [status, metric]);
  useEffect(() => {
    void load();
    const again = setInterval(() => void load(), 30_000);
    return () => clearInterval(again);
  }, [load]);

  return (
    <section className="page">
      <div className="page-head">
        <h1>What breaks next</h1>
        <div className="toolbar">
          <a className="button" href={href.sla()}>SLA policies</a>
          <button type="button" onClick={() => void load()}>Refresh</button>
        </div>
      </div>
      <p className="muted">The clocks still running on tickets, nearest due first: breached ones not yet met, then those in warning and counting. Paused and met clocks are not listed.</p>
      <div className="toolbar filters">
        <Field label="Status" messages={[]}>
          {(id) => (
            <select id={id} name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
              {STATUSES.map((s) => (
                <option key={s.value} value={s.value}>{s.label}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Clock" messages={[]}>
          {(id) => (
            <select id={id} name="metric" value={metric} onChange={(e) => setMetric(e.target.value)}>
              <option value="">every clock</option>
              {SLA_METRICS.map((m) => (
                <option key={m} value={m}>{METRIC_NAMES[m]}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorBanner error={error} />
      {list === null ? (
        error ? null : <Loading />
      ) : list.length === 0 ? (
        <p className="muted" data-testid="sla-queue-empty">Nothing is running late or due: no clock matches.</p>
      ) : (
        <table className="list" data-testid="sla-queue">
          <thead>
            <tr>
              <th scope="col">Ticket</th>
              <th scope="col">Clock</th>
              <th scope="col">State</th>
              <th scope="col">Due</th>
              <th scope="col">Left</th>
              <th scope="col">Priority</th>
              <th scope="col">Ticket status</th>
            </tr>
          </thead>
          <tbody>
            {list.map((item) => {
              const left = timeLeft(item.dueAt, now);
              return (
                <tr key={`${item.ticketId}.${item.metric}`} data-ticket-id={item.ticketId} data-target-status={item.targetStatus}>
                  <td><a className="user-text" href={href.ticket(item.ticketId)}>{item.subject}</a></td>
                  <td>{METRIC_NAMES[item.metric] ?? item.metric}</td>
                  <td><StatusBadge status={item.targetStatus} /></td>
                  <td><Time at={item.dueAt} /></td>
                  <td className={left.overdue ? 'error-text' : ''}>{left.text}</td>
                  <td>{item.priority}</td>
                  <td>{item.status}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
