import { useState } from 'react';
import { api, ApiError, type Calendar } from '../api.ts';
import { hoursSummary } from '../model/calendar-form.ts';
import { href } from '../router.ts';
import { useCalendars } from '../ui/calendars.tsx';
import { Dialog, ErrorBanner, Loading, Time } from '../ui/common.tsx';

/** The workspace's calendars: when its desks are open, for workflows that count business hours. */
export function CalendarsPage() {
  const { list, error, reload } = useCalendars();
  const [deleting, setDeleting] = useState<Calendar | null>(null);
  return (
    <section className="page">
      <div className="page-head">
        <h1>Calendars</h1>
        <div className="toolbar">
          <a className="button primary" href={href.newCalendar()} data-action="new-calendar">New calendar</a>
        </div>
      </div>
      <p className="muted">
        A calendar says when a desk is open: a time zone, weekly opening hours and holidays. Workflows name one to count business hours: “in business hours”, “older than 16 open
        hours”, a delay of open time.
      </p>
      <ErrorBanner error={error} />
      {list === null ? (
        error ? null : <Loading />
      ) : list.length === 0 ? (
        <p className="muted" data-testid="no-calendars">No calendars yet. Create one with the desk's hours, then pick it in a workflow's conditions and waits.</p>
      ) : (
        <table className="list" data-testid="calendar-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Time zone</th>
              <th>Open</th>
              <th>Holidays</th>
              <th>Changed</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.id} data-calendar-id={c.id}>
                <td><a className="calendar-name user-text" href={href.calendar(c.id)}>{c.name}</a></td>
                <td><code>{c.timeZone}</code></td>
                <td className="hours-summary">{hoursSummary(c.hours)}</td>
                <td>{c.holidays.length}</td>
                <td><Time at={c.updatedAt} /></td>
                <td className="actions">
                  <a href={href.calendar(c.id)}>Edit</a>
                  <button type="button" className="link danger" onClick={() => setDeleting(c)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && <DeleteCalendarDialog calendar={deleting} onClose={() => setDeleting(null)} onDeleted={() => { setDeleting(null); void reload(); }} />}
    </section>
  );
}

/**
 * Asks before deleting; a calendar active workflows use is not deleted, and the server's
 * answer (naming them) is shown.
 */
export function DeleteCalendarDialog({ calendar, onClose, onDeleted }: { calendar: Calendar; onClose: () => void; onDeleted: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.deleteCalendar(calendar.id);
      onDeleted();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const inUse = error instanceof ApiError && error.code === 'calendar_in_use';
  return (
    <Dialog title="Delete this calendar?" onClose={onClose}>
      <p>
        <strong className="user-text">{calendar.name}</strong> will be gone. Workflows that name it can no longer be saved or activated until they name another; runs under way
        keep counting with it.
      </p>
      {inUse ? (
        <div className="banner error" role="alert" data-testid="calendar-in-use">
          <div>
            <strong>Not deleted: active workflows use it.</strong>
            <p className="user-text">{(error as ApiError).message}</p>
          </div>
        </div>
      ) : (
        <ErrorBanner error={error} />
      )}
      <div className="buttons">
        <button type="button" onClick={onClose}>Keep it</button>
        <button type="button" className="danger" data-action="delete-calendar" disabled={busy || inUse} onClick={() => void remove()}>Delete</button>
      </div>
    </Dialog>
  );
}
