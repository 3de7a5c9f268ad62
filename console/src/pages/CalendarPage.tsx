import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { WEEKDAYS, type Weekday } from '../../../src/graph/index.ts';
import { api, ApiError, type Calendar } from '../api.ts';
import { calendarForm, calendarInput, dayName, newCalendarForm, placeCalendarIssues, type CalendarForm, type CalendarIssues } from '../model/calendar-form.ts';
import { timeZoneNames } from '../model/time.ts';
import { guardLeaving, href, navigate } from '../router.ts';
import { useCalendars } from '../ui/calendars.tsx';
import { ErrorBanner, Loading } from '../ui/common.tsx';
import { DeleteCalendarDialog } from './CalendarsPage.tsx';

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A calendar made or changed: its name, time zone, weekly hours (rows per day) and holidays. */
export function CalendarPage({ calendarId }: { calendarId: string | null }) {
  const { reload } = useCalendars();
  const [calendar, setCalendar] = useState<Calendar | null>(null);
  const [form, setForm] = useState<CalendarForm | null>(calendarId === null ? newCalendarForm(browserZone()) : null);
  const [baseline, setBaseline] = useState<string>(() => (form ? JSON.stringify(form) : ''));
  const [issues, setIssues] = useState<CalendarIssues | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState(false);

  useEffect(() => {
    if (calendarId === null) return;
    api.getCalendar(calendarId).then((c) => {
      const f = calendarForm(c);
      setCalendar(c);
      setForm(f);
      setBaseline(JSON.stringify(f));
    }, setError);
  }, [calendarId]);

  const dirty = form !== null && JSON.stringify(form) !== baseline;
  useEffect(() => {
    if (!dirty) return;
    guardLeaving(() => window.confirm('This calendar has unsaved changes. Leave without saving them?'));
    return () => guardLeaving(null);
  }, [dirty]);

  const zones = useMemo(() => timeZoneNames(Intl.supportedValuesOf('timeZone'), [form?.timeZone ?? '', browserZone()]), [form?.timeZone]);

  if (!form) return error ? <ErrorBanner error={error} /> : <Loading />;

  const edit = (change: (f: CalendarForm) => CalendarForm) => setForm((f) => (f ? change(f) : f));
  const setDay = (day: Weekday, rows: CalendarForm['days'][Weekday]) => edit((f) => ({ ...f, days: { ...f.days, [day]: rows } }));
  const messages = (key: string) => issues?.fields.get(key) ?? [];

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(null);
    setNotice(null);
    try {
      const input = calendarInput(form);
      const saved = calendar ? await api.updateCalendar(calendar.id, input) : await api.createCalendar(input);
      const f = calendarForm(saved);
      setIssues(null);
      setCalendar(saved);
      setForm(f);
      setBaseline(JSON.stringify(f));
      await reload();
      if (!calendar) {
        guardLeaving(null);
        navigate(href.calendars());
        return;
      }
      setNotice('Saved. Conditions evaluated and waits begun from now on count with these hours.');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'validation_failed') {
        const placed = placeCalendarIssues(err.details, form);
        setIssues(placed);
        setError(new ApiError(err.status, err.code, `Not saved: ${err.message}`, placed.general, null));
      } else setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="page calendar-page">
      <div className="page-head">
        <h1>
          <a href={href.calendars()}>Calendars</a> · {calendar ? <span className="user-text">{calendar.name}</span> : 'New calendar'}
        </h1>
        <div className="toolbar">
          {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
          {calendar && <button type="button" className="danger" onClick={() => setDeleting(true)}>Delete</button>}
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {notice && (
        <div className="banner ok" role="status">
          {notice}
          <button type="button" className="link" onClick={() => setNotice(null)} aria-label="Dismiss">×</button>
        </div>
      )}
      <form className="calendar-form stack" onSubmit={save} data-testid="calendar-form">
        <Labelled label="Name" messages={messages('name')}>
          <input name="name" value={form.name} maxLength={200} required onChange={(e) => edit((f) => ({ ...f, name: e.target.value }))} />
        </Labelled>
        <Labelled label="Time zone" messages={messages('timeZone')} hint="Opening hours and holidays are read in this zone, daylight saving included.">
          <select name="timeZone" value={form.timeZone} onChange={(e) => edit((f) => ({ ...f, timeZone: e.target.value }))}>
            {zones.map((z) => (
              <option key={z} value={z}>{z}</option>
            ))}
          </select>
        </Labelled>

        <fieldset className={messages('hours').length ? 'invalid' : ''}>
          <legend>Weekly opening hours</legend>
          <p className="muted small">Open from “from” up to “to” (not included), as HH:MM; 24:00 is the end of the day. A night shift is two intervals: 22:00–24:00 and, the next day, 00:00–06:00.</p>
          <table className="hours">
            <tbody>
              {WEEKDAYS.map((day) => (
                <tr key={day} data-day={day}>
                  <th scope="row">{dayName(day)}</th>
                  <td>
                    {form.days[day].length === 0 && <span className="muted">closed</span>}
                    {form.days[day].map((row, k) => (
                      <div key={k} className={`interval${messages(`hours.${day}.${k}`).length ? ' invalid' : ''}`}>
                        <input name={`hours.${day}.${k}.from`} aria-label={`${dayName(day)} from`} className={messages(`hours.${day}.${k}.from`).length ? 'bad' : ''} value={row.from} placeholder="09:00" size={5} maxLength={5} inputMode="numeric" onChange={(e) => setDay(day, form.days[day].map((r, j) => (j === k ? { ...r, from: e.target.value } : r)))} />
                        {' – '}
                        <input name={`hours.${day}.${k}.to`} aria-label={`${dayName(day)} to`} className={messages(`hours.${day}.${k}.to`).length ? 'bad' : ''} value={row.to} placeholder="17:00" size={5} maxLength={5} inputMode="numeric" onChange={(e) => setDay(day, form.days[day].map((r, j) => (j === k ? { ...r, to: e.target.value } : r)))} />
                        <button type="button" className="link danger" aria-label={`Remove ${dayName(day)} ${row.from}–${row.to}`} onClick={() => setDay(day, form.days[day].filter((_, j) => j !== k))}>remove</button>
                        {[...messages(`hours.${day}.${k}`), ...messages(`hours.${day}.${k}.from`), ...messages(`hours.${day}.${k}.to`)].map((m, i) => (
                          <p key={i} className="error-text field-error">{m}</p>
                        ))}
                      </div>
                    ))}
                  </td>
                  <td className="actions">
                    <button type="button" className="link" data-action={`add-hours-${day}`} onClick={() => setDay(day, [...form.days[day], nextInterval(form.days[day])])}>add hours</button>
                    {day === 'mon' && form.days.mon.length > 0 && (
                      <button type="button" className="link" onClick={() => edit((f) => ({ ...f, days: { ...f.days, ...Object.fromEntries(WEEKDAYS.slice(1, 5).map((d) => [d, f.days.mon.map((r) => ({ ...r }))])) } }))}>
                        same Tue–Fri
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {messages('hours').map((m, i) => (
            <p key={i} className="error-text field-error">{m}</p>
          ))}
        </fieldset>

        <fieldset className={messages('holidays').length ? 'invalid' : ''}>
          <legend>Holidays</legend>
          <p className="muted small">Closed all day, from midnight to midnight in the calendar's zone.</p>
          {form.holidays.length === 0 && <p className="muted">none</p>}
          {form.holidays.map((h, k) => (
            <div key={k} className="holiday" data-holiday={k}>
              <input type="date" name={`holidays.${k}.date`} aria-label="Date" className={messages(`holidays.${k}.date`).length ? 'bad' : ''} value={h.date} onChange={(e) => edit((f) => ({ ...f, holidays: f.holidays.map((x, j) => (j === k ? { ...x, date: e.target.value } : x)) }))} />
              <input name={`holidays.${k}.name`} aria-label="Holiday name" placeholder="Christmas Day" className={messages(`holidays.${k}.name`).length ? 'bad' : ''} value={h.name} maxLength={200} onChange={(e) => edit((f) => ({ ...f, holidays: f.holidays.map((x, j) => (j === k ? { ...x, name: e.target.value } : x)) }))} />
              <button type="button" className="link danger" onClick={() => edit((f) => ({ ...f, holidays: f.holidays.filter((_, j) => j !== k) }))}>remove</button>
              {[...messages(`holidays.${k}`), ...messages(`holidays.${k}.date`), ...messages(`holidays.${k}.name`)].map((m, i) => (
                <p key={i} className="error-text field-error">{m}</p>
              ))}
            </div>
          ))}
          <button type="button" className="link" data-action="add-holiday" onClick={() => edit((f) => ({ ...f, holidays: [...f.holidays, { date: '', name: '' }] }))}>add a holiday</button>
          {messages('holidays').map((m, i) => (
            <p key={i} className="error-text field-error">{m}</p>
          ))}
        </fieldset>

        <div className="buttons">
          <a href={href.calendars()}>Back to the calendars</a>
          <button type="submit" className="primary" data-action="save-calendar" disabled={saving || (calendar !== null && !dirty)}>
            {saving ? 'Saving…' : calendar ? 'Save' : 'Create'}
          </button>
        </div>
      </form>
      {deleting && calendar && (
        <DeleteCalendarDialog
          calendar={calendar}
          onClose={() => setDeleting(false)}
          onDeleted={() => {
            setDeleting(false);
            void reload();
            navigate(href.calendars());
          }}
        />
      )}
    </section>
  );
}

/** Another interval on a day: 09:00–17:00 on a closed day, else one to fill in. */
function nextInterval(rows: CalendarForm['days'][Weekday]) {
  return rows.length === 0 ? { from: '09:00', to: '17:00' } : { from: '', to: '' };
}

function Labelled({ label, messages, hint, children }: { label: string; messages: string[]; hint?: string; children: React.ReactNode }) {
  return (
    <div className={`field${messages.length ? ' invalid' : ''}`}>
      <label>
        {label}
        {children}
      </label>
      {hint && <p className="muted small">{hint}</p>}
      {messages.map((m, i) => (
        <p key={i} className="error-text field-error">{m}</p>
      ))}
    </div>
  );
}
