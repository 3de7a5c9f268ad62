// A calendar as the Calendars page edits it, and back: weekly hours as rows per day (the API
// has one flat list), holidays as rows, and the server's validation problems put on the row
// and input they name (`hours.3.to` is the fourth interval of the list that was sent). Pure;
// unit-tested in test/unit/console.

import { WEEKDAYS, type Weekday } from '../../../src/graph/index.ts';
import type { Issue } from './issues.ts';

export type OpeningInterval = { day: Weekday; from: string; to: string };
export type Holiday = { date: string; name: string };

/** A calendar as the API shows it (docs/contract.md, "Calendars"). */
export type Calendar = {
  id: string;
  name: string;
  timeZone: string;
  hours: OpeningInterval[];
  holidays: Holiday[];
  createdAt: string;
  updatedAt: string;
};

export type CalendarInput = Pick<Calendar, 'name' | 'timeZone' | 'hours' | 'holidays'>;

export type HoursRow = { from: string; to: string };

export type CalendarForm = {
  name: string;
  timeZone: string;
  days: Record<Weekday, HoursRow[]>;
  holidays: Holiday[];
};

const noHours = (): Record<Weekday, HoursRow[]> => Object.fromEntries(WEEKDAYS.map((d) => [d, []])) as unknown as Record<Weekday, HoursRow[]>;

/** A new calendar: open Monday to Friday, 09:00 to 17:00, in `timeZone`. */
export function newCalendarForm(timeZone: string): CalendarForm {
  const days = noHours();
  for (const day of WEEKDAYS.slice(0, 5)) days[day] = [{ from: '09:00', to: '17:00' }];
  return { name: '', timeZone, days, holidays: [] };
}

/** The form of a calendar: its intervals by day, in the order the calendar lists them. */
export function calendarForm(calendar: Pick<Calendar, 'name' | 'timeZone' | 'hours' | 'holidays'>): CalendarForm {
  const days = noHours();
  for (const { day, from, to } of calendar.hours) days[day]?.push({ from, to });
  return { name: calendar.name, timeZone: calendar.timeZone, days, holidays: calendar.holidays.map((h) => ({ ...h })) };
}

/** What the API is sent: the intervals day by day, Monday first. */
export function calendarInput(form: CalendarForm): CalendarInput {
  return {
    name: form.name,
    timeZone: form.timeZone,
    hours: WEEKDAYS.flatMap((day) => form.days[day].map((r): OpeningInterval => ({ day, from: r.from.trim(), to: r.to.trim() }))),
    holidays: form.holidays.map((h) => ({ date: h.date, name: h.name })),
  };
}

/** Where the `index`th interval sent by calendarInput sits on the form. */
function rowOf(form: CalendarForm, index: number): { day: Weekday; row: number } | undefined {
  let left = index;
  for (const day of WEEKDAYS) {
    if (left < form.days[day].length) return { day, row: left };
    left -= form.days[day].length;
  }
  return undefined;
}

export type CalendarIssues = {
  /** By input: `name`, `timeZone`, `hours`, `hours.mon.0` (a row), `hours.mon.0.to`, `holidays`, `holidays.2.date`. */
  fields: Map<string, string[]>;
  /** What no input shows. */
  general: Issue[];
};

/** The server's `{ path, message }` problems of a save of `form`, by the input they are about. */
export function placeCalendarIssues(details: Issue[], form: CalendarForm): CalendarIssues {
  const fields = new Map<string, string[]>();
  const general: Issue[] = [];
  const add = (key: string, message: string) => fields.set(key, [...(fields.get(key) ?? []), message]);
  for (const issue of details) {
    const [head, index, leaf] = issue.path.split('.');
    if ((head === 'name' || head === 'timeZone') && index === undefined) add(head, issue.message);
    else if (head === 'hours' && index === undefined) add('hours', issue.message);
    else if (head === 'hours' && /^\d+$/.test(index)) {
      const at = rowOf(form, Number(index));
      if (at) add(`hours.${at.day}.${at.row}${leaf === 'from' || leaf === 'to' ? `.${leaf}` : ''}`, issue.message);
      else general.push(issue);
    } else if (head === 'holidays' && index === undefined) add('holidays', issue.message);
    else if (head === 'holidays' && /^\d+$/.test(index) && Number(index) < form.holidays.length) {
      add(`holidays.${index}${leaf === 'date' || leaf === 'name' ? `.${leaf}` : ''}`, issue.message);
    } else general.push(issue);
  }
  return { fields, general };
}

const DAY_NAMES: Record<Weekday, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

/** `Mon–Fri 09:00–17:00 · Sat 10:00–14:00`: days with the same hours run together. */
export function hoursSummary(hours: OpeningInterval[]): string {
  const byDay = WEEKDAYS.map((day) =>
    hours
      .filter((h) => h.day === day)
      .sort((a, b) => a.from.localeCompare(b.from))
      .map((h) => `${h.from}–${h.to}`)
      .join(', '),
  );
  const parts: string[] = [];
  for (let i = 0; i < WEEKDAYS.length; i++) {
    if (byDay[i] === '') continue;
    let j = i;
    while (j + 1 < WEEKDAYS.length && byDay[j + 1] === byDay[i]) j++;
    const days = j === i ? DAY_NAMES[WEEKDAYS[i]] : `${DAY_NAMES[WEEKDAYS[i]]}${j === i + 1 ? ', ' : '–'}${DAY_NAMES[WEEKDAYS[j]]}`;
    parts.push(`${days} ${byDay[i]}`);
    i = j;
  }
  return parts.length ? parts.join(' · ') : 'never open';
}

export function dayName(day: Weekday): string {
  return DAY_NAMES[day];
}
