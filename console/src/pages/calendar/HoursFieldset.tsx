import { WEEKDAYS, type Weekday } from '../../../../src/graph/index.ts';
import { dayName, type CalendarForm } from '../../model/calendar-form.ts';
import { FieldErrors } from '../../ui/Field.tsx';
import type { CalendarPageModel } from './useCalendarPage.ts';

/** The weekly opening hours: a row per day, its intervals, and the server's objections on the interval they name. */
export function HoursFieldset({ page, form }: { page: CalendarPageModel; form: CalendarForm }) {
  const { messages } = page;
  return (
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
                  <Interval key={k} page={page} day={day} row={k} from={row.from} to={row.to} />
                ))}
              </td>
              <td className="actions">
                <button type="button" className="link" data-action={`add-hours-${day}`} onClick={() => page.dispatch({ type: 'addHours', day })}>add hours</button>
                {day === 'mon' && form.days.mon.length > 0 && (
                  <button type="button" className="link" onClick={() => page.dispatch({ type: 'copyMonday' })}>
                    same Tue–Fri
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <FieldErrors messages={messages('hours')} />
    </fieldset>
  );
}

function Interval({ page, day, row, from, to }: { page: CalendarPageModel; day: Weekday; row: number; from: string; to: string }) {
  const { messages, dispatch } = page;
  const key = `hours.${day}.${row}`;
  const input = (end: 'from' | 'to', value: string, placeholder: string) => (
    <input
      name={`${key}.${end}`}
      aria-label={`${dayName(day)} ${end}`}
      className={messages(`${key}.${end}`).length ? 'bad' : ''}
      value={value}
      placeholder={placeholder}
      size={5}
      maxLength={5}
      inputMode="numeric"
      onChange={(e) => dispatch({ type: 'setHours', day, row, end, value: e.target.value })}
    />
  );
  return (
    <div className={`interval${messages(key).length ? ' invalid' : ''}`}>
      {input('from', from, '09:00')}
      {' – '}
      {input('to', to, '17:00')}
      <button type="button" className="link danger" aria-label={`Remove ${dayName(day)} ${from}–${to}`} onClick={() => dispatch({ type: 'removeHours', day, row })}>remove</button>
      <FieldErrors messages={[...messages(key), ...messages(`${key}.from`), ...messages(`${key}.to`)]} />
    </div>
  );
}
