// A ticket's service-level clocks (GET /api/v1/tickets/:id/sla), self-contained: give it a
// ticket id and it reads and shows each clock: its metric, status, due time and the time left
// or overdue, and how long it stood still. The clocks are read again when the feed brings a
// change of the ticket (and 1.5 and 5 s later: the relay moves the clocks just after the event),
// and just after the nearest due time, when a clock turns breached; the time left is counted
// again every 15 seconds.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type TicketSla } from '../api.ts';
import type { LiveEvent } from '../model/live.ts';
import { durationHint } from '../model/time.ts';
import { METRIC_NAMES, nextClockChange, timeLeft } from '../model/sla-form.ts';
import { href } from '../router.ts';
import { StatusBadge, Time } from './common.tsx';
import { useLive } from './live.tsx';

/** After a change of the ticket, the clocks are read at once and again these much later, once the relay has moved them. */
const AFTER_RELAY_MS = [1_500, 5_000];
/** A due time further ahead than this is looked at again then (a timer cannot wait weeks). */
const LONGEST_WAIT_MS = 3_600_000;

export function SlaClocks({ ticketId }: { ticketId: string }) {
  const [sla, setSla] = useState<TicketSla | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [now, setNow] = useState(() => Date.now());
  const load = useCallback(async () => {
    try {
      setSla(await api.ticketSla(ticketId));
      setError(null);
      setNow(Date.now());
    } catch (err) {
      setError(err);
    }
  }, [ticketId]);
  useEffect(() => {
    void load();
    const tick = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(tick);
  }, [load]);

  const again = useRef<Array<ReturnType<typeof setTimeout>>>([]);
  const stopAgain = () => again.current.splice(0).forEach(clearTimeout);
  useEffect(() => stopAgain, []);
  const onEvent = useCallback(
    (event: LiveEvent) => {
      if (event.ticketId !== ticketId || event.type === 'note.added') return;
      void load();
      stopAgain();
      again.current = AFTER_RELAY_MS.map((ms) => setTimeout(() => void load(), ms));
    },
    [ticketId, load],
  );
  useLive(onEvent, load);

  // Just after the nearest due time, the server says the clock breached.
  useEffect(() => {
    const next = nextClockChange(sla, Date.now());
    if (next === null) return;
    const timer = setTimeout(() => void load(), Math.min(next - Date.now() + 500, LONGEST_WAIT_MS));
    return () => clearTimeout(timer);
  }, [sla, load]);

  return (
    <section className="sla-clocks" aria-label="Service levels" data-testid="sla-clocks">
      <h2>Service levels</h2>
      {error ? (
        <p className="error-text small" role="alert">The clocks could not be read: {error instanceof Error ? error.message : String(error)}</p>
      ) : sla === undefined ? (
        <p className="muted">Loading…</p>
      ) : sla === null ? (
        <p className="muted" data-testid="no-sla">No SLA policy governs this ticket.</p>
      ) : (
        <>
          <p className="muted small">
            Policy <a className="user-text" href={href.slaPolicy(sla.policyId)}>{sla.policyName}</a>
          </p>
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Clock</th>
                <th scope="col">Status</th>
                <th scope="col">Due</th>
                <th scope="col">Left</th>
              </tr>
            </thead>
            <tbody>
              {sla.targets.map((t) => {
                const left = t.dueAt && (t.status === 'active' || t.status === 'breached') && !t.fulfilledAt ? timeLeft(t.dueAt, now) : null;
                return (
                  <tr key={t.metric} data-metric={t.metric} data-target-status={t.status}>
                    <td>{METRIC_NAMES[t.metric] ?? t.metric}</td>
                    <td><StatusBadge status={t.status} /></td>
                    <td>{t.dueAt ? <Time at={t.dueAt} /> : <span className="muted">{t.status === 'paused' ? 'stands still' : '—'}</span>}</td>
                    <td className="small">
                      {left && <span className={left.overdue ? 'error-text' : ''} data-testid="time-left">{left.text}</span>}
                      {t.fulfilledAt && <>met <Time at={t.fulfilledAt} /></>}
                      {t.pausedSeconds > 0 && <span className="muted"> · paused {durationHint(t.pausedSeconds)}</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
