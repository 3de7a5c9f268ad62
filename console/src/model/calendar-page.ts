// A calendar's page: the form being edited (console/src/model/calendar-form.ts), the calendar as
// last saved, and where a save or a deletion stands. `calendarPageReducer` is pure: it takes
// what the user did and what the API answered (console/src/pages/calendar/useCalendarPage.ts
// makes the calls). Unit-tested in test/unit/console/calendar-page.test.ts.

import { WEEKDAYS, type Weekday } from '../../../src/graph/index.ts';
import { ApiError, notSaved } from '../api-types.ts';
import { calendarForm, placeCalendarIssues, type Calendar, type CalendarForm, type CalendarIssues, type HoursRow } from './calendar-form.ts';

export type CalendarPageState = {
  /** As the server last answered; null for a calendar not created yet. */
  calendar: Calendar | null;
  /** Null until the calendar is read. */
  form: CalendarForm | null;
  /** The form as last saved (as JSON): the edits are compared with it. */
  baseline: string;
  /** The server's objections to the last save, by the input they are about. */
  issues: CalendarIssues | null;
  error: unknown;
  notice: string | null;
  saving: boolean;
  /** The "delete this calendar?" dialog is open. */
  deleting: boolean;
};

/** What the user changes on the form. `row` counts a day's intervals, `index` the holidays, from 0. */
export type CalendarEdit =
  | { type: 'rename'; name: string }
  | { type: 'setTimeZone'; timeZone: string }
  | { type: 'setHours'; day: Weekday; row: number; end: 'from' | 'to'; value: string }
  | { type: 'addHours'; day: Weekday }
  | { type: 'removeHours'; day: Weekday; row: number }
  /** "same Tue–Fri": Monday's hours on every weekday. */
  | { type: 'copyMonday' }
  | { type: 'addHoliday' }
  | { type: 'setHoliday'; index: number; key: 'date' | 'name'; value: string }
  | { type: 'removeHoliday'; index: number };

export type CalendarPageAction =
  | CalendarEdit
  | { type: 'loaded'; calendar: Calendar }
  | { type: 'loadFailed'; error: unknown }
  | { type: 'saveStarted' }
  /** The server's calendar: the form shows it as saved. The save ends with `saveFinished`. */
  | { type: 'saved'; calendar: Calendar }
  | { type: 'saveFinished'; notice: string | null }
  /** `form` is the one that was sent, which the server's objections are placed on. */
  | { type: 'saveFailed'; error: unknown; form: CalendarForm }
  | { type: 'askDelete' }
  /** The error or notice banner dismissed, the delete dialog closed. */
  | { type: 'dismiss'; what: 'error' | 'notice' | 'deleting' };

export const SAVED_NOTICE = 'Saved. Conditions evaluated and waits begun from now on count with these hours.';

/** A page for `form` (a new calendar's), or, with null, for a calendar still to be read. */
export function initialCalendarPage(form: CalendarForm | null): CalendarPageState {
  return { calendar: null, form, baseline: form ? JSON.stringify(form) : '', issues: null, error: null, notice: null, saving: false, deleting: false };
}

const asSaved = (calendar: Calendar) => {
  const form = calendarForm(calendar);
  return { calendar, form, baseline: JSON.stringify(form) };
};

export function calendarPageReducer(state: CalendarPageState, action: CalendarPageAction): CalendarPageState {
  switch (action.type) {
    case 'loaded':
      return { ...state, ...asSaved(action.calendar) };
    case 'loadFailed':
      return { ...state, error: action.error };
    case 'saveStarted':
      return { ...state, saving: true, error: null, notice: null };
    case 'saved':
      return { ...state, ...asSaved(action.calendar), issues: null };
    case 'saveFinished':
      return { ...state, saving: false, notice: action.notice ?? state.notice };
    case 'saveFailed':
      return { ...state, saving: false, ...refusal(action.error, action.form) };
    case 'askDelete':
      return { ...state, deleting: true };
    case 'dismiss':
      return { ...state, [action.what]: action.what === 'deleting' ? false : null };
    default:
      return state.form ? { ...state, form: editCalendarForm(state.form, action) } : state;
  }
}

/** A failed save: the server's objections go beside the inputs they name, the rest in the banner. */
function refusal(error: unknown, form: CalendarForm): Pick<CalendarPageState, 'error'> & Partial<CalendarPageState> {
  if (!(error instanceof ApiError && error.code === 'validation_failed')) return { error };
  const issues = placeCalendarIssues(error.details, form);
  return { issues, error: notSaved(error, issues.general) };
}

export function editCalendarForm(form: CalendarForm, edit: CalendarEdit): CalendarForm {
  const day = (d: Weekday, rows: HoursRow[]): CalendarForm => ({ ...form, days: { ...form.days, [d]: rows } });
  switch (edit.type) {
    case 'rename':
      return { ...form, name: edit.name };
    case 'setTimeZone':
      return { ...form, timeZone: edit.timeZone };
    case 'setHours':
      return day(edit.day, form.days[edit.day].map((r, j) => (j === edit.row ? { ...r, [edit.end]: edit.value } : r)));
    case 'addHours':
      return day(edit.day, [...form.days[edit.day], nextInterval(form.days[edit.day])]);
    case 'removeHours':
      return day(edit.day, form.days[edit.day].filter((_, j) => j !== edit.row));
    case 'copyMonday':
      return { ...form, days: { ...form.days, ...Object.fromEntries(WEEKDAYS.slice(1, 5).map((d) => [d, form.days.mon.map((r) => ({ ...r }))])) } };
    case 'addHoliday':
      return { ...form, holidays: [...form.holidays, { date: '', name: '' }] };
    case 'setHoliday':
      return { ...form, holidays: form.holidays.map((h, j) => (j === edit.index ? { ...h, [edit.key]: edit.value } : h)) };
    case 'removeHoliday':
      return { ...form, holidays: form.holidays.filter((_, j) => j !== edit.index) };
  }
}

/** Another interval on a day: 09:00–17:00 on a closed day, else one to fill in. */
function nextInterval(rows: HoursRow[]): HoursRow {
  return rows.length === 0 ? { from: '09:00', to: '17:00' } : { from: '', to: '' };
}

/** Whether the form differs from the calendar as last saved. */
export function isCalendarDirty(state: CalendarPageState): boolean {
  return state.form !== null && JSON.stringify(state.form) !== state.baseline;
}

/** The server's objections to the input named `key` (`name`, `hours.mon.0.to`, `holidays.2`…). */
export function messagesFor(state: CalendarPageState, key: string): string[] {
  return state.issues?.fields.get(key) ?? [];
}
