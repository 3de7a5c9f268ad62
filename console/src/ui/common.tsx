// Small pieces every page uses. Every text shown here is rendered by React as text: nothing a
// user wrote is ever parsed as HTML.
import { useEffect, useRef, type ReactNode } from 'react';
import { ApiError } from '../api.ts';
import { stepBadge, type StepKind } from '../model/run-words.ts';
import { formatInstant } from '../model/time.ts';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status.replace(/[^a-z_]/g, '')}`} data-status={status}>{status.replace(/_/g, ' ')}</span>;
}

/**
 * A step's badge: a condition's true or false, a dry run's "would …", else its status.
 * `data-status` keeps the API's status.
 */
export function StepStatus({ step, kind, simulated, actionType }: { step: { status: string; result?: unknown }; kind: StepKind | undefined; simulated?: boolean; actionType?: unknown }) {
  const badge = stepBadge(step, kind, { simulated, actionType: typeof actionType === 'string' ? actionType : undefined });
  const outcome = badge.tone.startsWith('outcome-') ? ' outcome' : '';
  return <span className={`badge ${badge.tone}${outcome}`} data-status={step.status}>{badge.text}</span>;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An instant, as a date and time (or as `label`, such as an age, with the date and time on hover). */
export function Time({ at, label }: { at: string | null | undefined; label?: string }) {
  if (!at) return <span className="muted">—</span>;
  const full = dateTime.format(new Date(at));
  return <time dateTime={at} title={label ? full : at}>{label ?? full}</time>;
}

/** A wait's deadline, in the zone of the calendar it counts in (else the browser's). */
export function Until({ at, timeZone }: { at: string; timeZone?: string }) {
  return (
    <span className="until" data-until={at}>
      until <time dateTime={at} title={at}>{formatInstant(at, timeZone)}</time>
    </span>
  );
}

export function ErrorBanner({ error, onClose }: { error: unknown; onClose?: () => void }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div className="banner error" role="alert">
      <div>
        <strong>{message}</strong>
        {details.length > 0 && (
          <ul>
            {details.map((d, i) => (
              <li key={i}>
                <code>{d.path}</code>: {d.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      {onClose && (
        <button type="button" className="link" onClick={onClose} aria-label="Dismiss">
          ×
        </button>
      )}
    </div>
  );
}

/** What just went well (saved, activated), until dismissed. */
export function NoticeBanner({ notice, onClose }: { notice: string | null; onClose: () => void }) {
  if (!notice) return null;
  return (
    <div className="banner ok" role="status">
      {notice}
      <button type="button" className="link" onClick={onClose} aria-label="Dismiss">×</button>
    </div>
  );
}

export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} className="dialog" onCancel={(e) => { e.preventDefault(); onClose(); }} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function Loading() {
  return <p className="muted">Loading…</p>;
}
