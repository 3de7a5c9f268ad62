import { useCallback, useEffect, useState } from 'react';
import { api, type SlaPolicy } from '../api.ts';
import { METRIC_NAMES, reorderPatches } from '../model/sla-form.ts';
import { durationHint } from '../model/time.ts';
import { href } from '../router.ts';
import { useCalendars } from '../ui/calendars.tsx';
import { Dialog, ErrorBanner, Loading } from '../ui/common.tsx';

/** The workspace's SLA policies in the order they are matched: the first active one whose match holds governs a ticket. */
export function SlaPoliciesPage() {
  const [list, setList] = useState<SlaPolicy[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<SlaPolicy | null>(null);
  const { byId } = useCalendars();

  const reload = useCallback(async () => {
    try {
      setList(await api.listSlaPolicies());
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  /** A change of one or more policies, then the list as the server orders it. */
  const change = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      await reload();
      setBusy(false);
    }
  };
  const move = (from: number, to: number) =>
    change(async () => {
      for (const p of reorderPatches(list ?? [], from, to)) await api.updateSlaPolicy(p.id, { position: p.position });
    });

  return (
    <section className="page">
      <div className="page-head">
        <h1>SLA policies</h1>
        <div className="toolbar">
          <a className="button" href={href.slaQueue()}>What breaks next</a>
          <a className="button primary" href={href.newSlaPolicy()} data-action="new-sla-policy">New policy</a>
        </div>
      </div>
      <p className="muted">
        A policy promises replies and resolutions within a time, per priority, counted on the clock or in a calendar's open hours. A ticket is governed by the first active policy,
        in this order, whose match holds.
      </p>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {list === null ? (
        error ? null : <Loading />
      ) : list.length === 0 ? (
        <p className="muted" data-testid="no-sla-policies">No policies yet: no ticket has clocks. Create one with the desk's promises.</p>
      ) : (
        <table className="list" data-testid="sla-policy-list">
          <thead>
            <tr>
              <th>Order</th>
              <th>Name</th>
              <th>Targets</th>
              <th>Counts</th>
              <th>Active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((p, i) => (
              <tr key={p.id} data-policy-id={p.id}>
                <td className="order">
                  <span title={`position ${p.position}`}>{i + 1}</span>{' '}
                  <button type="button" className="link" aria-label={`Move ${p.name} up`} data-action="move-up" disabled={busy || i === 0} onClick={() => void move(i, i - 1)}>↑</button>
                  <button type="button" className="link" aria-label={`Move ${p.name} down`} data-action="move-down" disabled={busy || i === list.length - 1} onClick={() => void move(i, i + 1)}>↓</button>
                </td>
                <td><a className="policy-name user-text" href={href.slaPolicy(p.id)}>{p.name}</a></td>
                <td className="small">{targetsSummary(p)}</td>
                <td className="small">{p.calendarId ? <>open hours of <span className="user-text">{byId(p.calendarId)?.name ?? 'a calendar'}</span></> : 'clock time'}</td>
                <td>
                  <label className="inline">
                    <input type="checkbox" name={`active-${p.id}`} checked={p.isActive} disabled={busy} onChange={(e) => void change(() => api.updateSlaPolicy(p.id, { isActive: e.target.checked }))} />
                    <span className="sr-only">{p.name} </span>active
                  </label>
                </td>
                <td className="actions">
                  <a href={href.slaPolicy(p.id)} aria-label={`Edit ${p.name}`}>Edit</a>
                  <button type="button" className="link danger" aria-label={`Delete ${p.name}`} onClick={() => setDeleting(p)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && <DeleteSlaPolicyDialog policy={deleting} onClose={() => setDeleting(null)} onDeleted={() => { setDeleting(null); void reload(); }} />}
    </section>
  );
}

/** `First reply: urgent 1 h, high 4 h · Resolution: urgent 8 h`. */
function targetsSummary(p: SlaPolicy): string {
  if (p.targets.length === 0) return 'no targets';
  const byMetric = new Map<string, string[]>();
  for (const t of p.targets) byMetric.set(t.metric, [...(byMetric.get(t.metric) ?? []), `${t.priority} ${durationHint(t.seconds)}`]);
  return [...byMetric].map(([m, parts]) => `${METRIC_NAMES[m as keyof typeof METRIC_NAMES] ?? m}: ${parts.join(', ')}`).join(' · ');
}

/** Asks before deleting: the tickets it governs go to the next policy that matches, or none. */
export function DeleteSlaPolicyDialog({ policy, onClose, onDeleted }: { policy: SlaPolicy; onClose: () => void; onDeleted: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await api.deleteSlaPolicy(policy.id);
      onDeleted();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Dialog title="Delete this policy?" onClose={onClose}>
      <p>
        <strong className="user-text">{policy.name}</strong> will be gone. The tickets it governs that are not solved or closed are given to the next policy that matches
        them, or keep no clocks.
      </p>
      <ErrorBanner error={error} />
      <div className="buttons">
        <button type="button" onClick={onClose}>Keep it</button>
        <button type="button" className="danger" data-action="delete-sla-policy" disabled={busy} onClick={() => void remove()}>Delete</button>
      </div>
    </Dialog>
  );
}
