import { href } from '../router.ts';
import { useCalendars } from './calendars.tsx';

type Props = {
  id: string;
  name: string;
  value: unknown;
  /** Optional: the empty choice leaves the calendar out (time counts on the clock, not in open hours). */
  optional: boolean;
  onChange: (id: string | undefined) => void;
};

/**
 * A calendar of the workspace, picked by name. A workspace without one is told how to make
 * one; an id the workspace does not have (deleted, another workspace's) stays visible as such.
 */
export function CalendarPicker({ id, name, value, optional, onChange }: Props) {
  const { list, error, byId, reload } = useCalendars();
  const current = typeof value === 'string' ? value : '';
  const known = byId(current);
  return (
    <div className="calendar-picker">
      <select id={id} name={name} value={known ? known.id : current} onChange={(e) => onChange(e.target.value === '' ? (optional ? undefined : '') : e.target.value)}>
        <option value="">{optional ? 'none: count time on the clock' : 'Choose a calendar…'}</option>
        {(list ?? []).map((c) => (
          <option key={c.id} value={c.id}>{`${c.name} (${c.timeZone})`}</option>
        ))}
        {current !== '' && !known && list !== null && <option value={current}>{`not a calendar of this workspace: ${current}`}</option>}
      </select>
      {list !== null && list.length === 0 && (
        <p className="muted small" data-testid="no-calendars">
          This workspace has no calendar yet: business hours are counted in one. <a href={href.newCalendar()}>Create a calendar</a> (its time zone,
          opening hours and holidays), then pick it here.
        </p>
      )}
      {error ? <p className="error-text small">The calendars could not be read: {error instanceof Error ? error.message : String(error)}</p> : null}
      <div className="small">
        <a href={href.calendars()}>Calendars</a>
        {' · '}
        <button type="button" className="link" onClick={() => void reload()}>reload the list</button>
      </div>
    </div>
  );
}
