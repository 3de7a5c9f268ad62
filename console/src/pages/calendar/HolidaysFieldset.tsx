import type { CalendarForm } from '../../model/calendar-form.ts';
import { FieldErrors } from '../../ui/Field.tsx';
import type { CalendarPageModel } from './useCalendarPage.ts';

/** The holidays: a date and a name each, and the server's objections on the one they name. */
export function HolidaysFieldset({ page, form }: { page: CalendarPageModel; form: CalendarForm }) {
  const { messages, dispatch } = page;
  return (
    <fieldset className={messages('holidays').length ? 'invalid' : ''}>
      <legend>Holidays</legend>
      <p className="muted small">Closed all day, from midnight to midnight in the calendar's zone.</p>
      {form.holidays.length === 0 && <p className="muted">none</p>}
      {form.holidays.map((h, k) => (
        <div key={k} className="holiday" data-holiday={k}>
          <input type="date" name={`holidays.${k}.date`} aria-label="Date" className={messages(`holidays.${k}.date`).length ? 'bad' : ''} value={h.date} onChange={(e) => dispatch({ type: 'setHoliday', index: k, key: 'date', value: e.target.value })} />
          <input name={`holidays.${k}.name`} aria-label="Holiday name" placeholder="Christmas Day" className={messages(`holidays.${k}.name`).length ? 'bad' : ''} value={h.name} maxLength={200} onChange={(e) => dispatch({ type: 'setHoliday', index: k, key: 'name', value: e.target.value })} />
          <button type="button" className="link danger" onClick={() => dispatch({ type: 'removeHoliday', index: k })}>remove</button>
          <FieldErrors messages={[...messages(`holidays.${k}`), ...messages(`holidays.${k}.date`), ...messages(`holidays.${k}.name`)]} />
        </div>
      ))}
      <button type="button" className="link" data-action="add-holiday" onClick={() => dispatch({ type: 'addHoliday' })}>add a holiday</button>
      <FieldErrors messages={messages('holidays')} />
    </fieldset>
  );
}
