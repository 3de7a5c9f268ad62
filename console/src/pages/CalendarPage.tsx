import type { ReactNode } from 'react';
import { href } from '../router.ts';
import { ErrorBanner, Loading, NoticeBanner } from '../ui/common.tsx';
import { FieldErrors } from '../ui/Field.tsx';
import { DeleteCalendarDialog } from './CalendarsPage.tsx';
import { HolidaysFieldset } from './calendar/HolidaysFieldset.tsx';
import { HoursFieldset } from './calendar/HoursFieldset.tsx';
import { useCalendarPage } from './calendar/useCalendarPage.ts';

/**
 * A calendar made or changed: its name, time zone, weekly hours (rows per day) and holidays.
 * Its state is console/src/model/calendar-page.ts.
 */
export function CalendarPage({ calendarId }: { calendarId: string | null }) {
  const page = useCalendarPage(calendarId);
  const { state, dispatch, dirty, messages } = page;
  const { calendar, form } = state;
  if (!form) return state.error ? <ErrorBanner error={state.error} /> : <Loading />;

  return (
    <section className="page calendar-page">
      <div className="page-head">
        <h1>
          <a href={href.calendars()}>Calendars</a> · {calendar ? <span className="user-text">{calendar.name}</span> : 'New calendar'}
        </h1>
        <div className="toolbar">
          {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
          {calendar && <button type="button" className="danger" onClick={() => dispatch({ type: 'askDelete' })}>Delete</button>}
        </div>
      </div>
      <ErrorBanner error={state.error} onClose={() => dispatch({ type: 'dismiss', what: 'error' })} />
      <NoticeBanner notice={state.notice} onClose={() => dispatch({ type: 'dismiss', what: 'notice' })} />
      <form className="calendar-form stack" onSubmit={page.save} data-testid="calendar-form">
        <Labelled label="Name" messages={messages('name')}>
          <input name="name" value={form.name} maxLength={200} required onChange={(e) => dispatch({ type: 'rename', name: e.target.value })} />
        </Labelled>
        <Labelled label="Time zone" messages={messages('timeZone')} hint="Opening hours and holidays are read in this zone, daylight saving included.">
          <select name="timeZone" value={form.timeZone} onChange={(e) => dispatch({ type: 'setTimeZone', timeZone: e.target.value })}>
            {page.zones.map((z) => (
              <option key={z} value={z}>{z}</option>
            ))}
          </select>
        </Labelled>
        <HoursFieldset page={page} form={form} />
        <HolidaysFieldset page={page} form={form} />
        <div className="buttons">
          <a href={href.calendars()}>Back to the calendars</a>
          <button type="submit" className="primary" data-action="save-calendar" disabled={state.saving || (calendar !== null && !dirty)}>
            {state.saving ? 'Saving…' : calendar ? 'Save' : 'Create'}
          </button>
        </div>
      </form>
      {state.deleting && calendar && <DeleteCalendarDialog calendar={calendar} onClose={() => dispatch({ type: 'dismiss', what: 'deleting' })} onDeleted={page.deleted} />}
    </section>
  );
}

function Labelled({ label, messages, hint, children }: { label: string; messages: string[]; hint?: string; children: ReactNode }) {
  return (
    <div className={`field${messages.length ? ' invalid' : ''}`}>
      <label>
        {label}
        {children}
      </label>
      {hint && <p className="muted small">{hint}</p>}
      <FieldErrors messages={messages} />
    </div>
  );
}
