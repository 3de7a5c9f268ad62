// A calendar's page (console/src/model/calendar-page.ts): what the user does on the form and what
// the API answers, and what the user sees change.
import { describe, expect, it } from 'vitest';
import type { Weekday } from '../../../src/graph/index.ts';
import { ApiError } from '../../../console/src/api-types.ts';
import { calendarInput, newCalendarForm, type Calendar } from '../../../console/src/model/calendar-form.ts';
import {
  calendarPageReducer,
  initialCalendarPage,
  isCalendarDirty,
  messagesFor,
  SAVED_NOTICE,
  type CalendarPageAction,
  type CalendarPageState,
} from '../../../console/src/model/calendar-page.ts';

const open = (day: Weekday, from: string, to: string) => ({ day, from, to });
/** Open Monday, and Wednesday in two intervals (the later one listed first). */
const BERLIN: Calendar = {
  ...{ id: 'cal_1', name: 'Berlin office', timeZone: 'Europe/Berlin' },
  hours: [open('mon', '09:00', '17:00'), open('wed', '13:00', '17:00'), open('wed', '09:00', '12:00')],
  holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
  ...{ createdAt: '2026-11-01T00:00:00.000Z', updatedAt: '2026-11-01T00:00:00.000Z' },
};

const run = (state: CalendarPageState, ...actions: CalendarPageAction[]) => actions.reduce(calendarPageReducer, state);
const opened = () => run(initialCalendarPage(null), { type: 'loaded', calendar: BERLIN });
const fresh = () => initialCalendarPage(newCalendarForm('Europe/Berlin'));
const form = (state: CalendarPageState) => state.form!;
const refused = (details: Array<{ path: string; message: string }>) => new ApiError(400, 'validation_failed', 'The calendar is not valid.', details, null);

describe('opening the page', () => {
  it('shows a new calendar open weekdays 09:00–17:00 at once, with nothing unsaved', () => {
    const state = fresh();
    expect(state.calendar).toBeNull();
    expect(form(state).days.fri).toEqual([{ from: '09:00', to: '17:00' }]);
    expect(isCalendarDirty(state)).toBe(false);
  });

  it('shows a loading page until a calendar is read, then its hours by day', () => {
    const loading = initialCalendarPage(null);
    expect(loading.form).toBeNull();
    expect(isCalendarDirty(loading)).toBe(false);
    const state = opened();
    expect(state.calendar).toBe(BERLIN);
    expect(form(state).days.wed).toEqual([{ from: '13:00', to: '17:00' }, { from: '09:00', to: '12:00' }]);
    expect(isCalendarDirty(state)).toBe(false);
  });

  it('shows why a calendar could not be read', () => {
    const error = new ApiError(404, 'not_found', 'Calendar not found.', [], null);
    expect(run(initialCalendarPage(null), { type: 'loadFailed', error })).toMatchObject({ form: null, error });
  });

  it('ignores edits before the calendar is read', () => {
    const loading = initialCalendarPage(null);
    expect(run(loading, { type: 'rename', name: 'x' }, { type: 'addHoliday' })).toEqual(loading);
  });
});

describe('editing the form', () => {
  it('renames and moves the calendar to another zone, and shows it unsaved until put back', () => {
    const state = run(opened(), { type: 'rename', name: 'Berlin' }, { type: 'setTimeZone', timeZone: 'Europe/Paris' });
    expect(form(state)).toMatchObject({ name: 'Berlin', timeZone: 'Europe/Paris' });
    expect(isCalendarDirty(state)).toBe(true);
    expect(isCalendarDirty(run(state, { type: 'rename', name: 'Berlin office' }, { type: 'setTimeZone', timeZone: 'Europe/Berlin' }))).toBe(false);
  });

  it('types an interval\'s start and end', () => {
    const state = run(opened(), { type: 'setHours', day: 'wed', row: 1, end: 'to', value: '12:30' }, { type: 'setHours', day: 'wed', row: 0, end: 'from', value: '14:00' });
    expect(form(state).days.wed).toEqual([{ from: '14:00', to: '17:00' }, { from: '09:00', to: '12:30' }]);
    expect(form(state).days.mon).toEqual([{ from: '09:00', to: '17:00' }]);
  });

  it('opens a closed day 09:00–17:00, and adds an empty interval to an open one', () => {
    const state = run(opened(), { type: 'addHours', day: 'sat' }, { type: 'addHours', day: 'mon' });
    expect(form(state).days.sat).toEqual([{ from: '09:00', to: '17:00' }]);
    expect(form(state).days.mon).toEqual([{ from: '09:00', to: '17:00' }, { from: '', to: '' }]);
  });

  it('removes an interval, closing the day when it was the last', () => {
    const state = run(opened(), { type: 'removeHours', day: 'wed', row: 0 }, { type: 'removeHours', day: 'mon', row: 0 });
    expect(form(state).days.wed).toEqual([{ from: '09:00', to: '12:00' }]);
    expect(form(state).days.mon).toEqual([]);
  });

  it('gives Tuesday to Friday Monday\'s hours ("same Tue–Fri"), each a copy of its own', () => {
    const state = run(opened(), { type: 'addHours', day: 'mon' }, { type: 'setHours', day: 'mon', row: 1, end: 'from', value: '18:00' }, { type: 'setHours', day: 'mon', row: 1, end: 'to', value: '20:00' }, { type: 'copyMonday' });
    const monday = [{ from: '09:00', to: '17:00' }, { from: '18:00', to: '20:00' }];
    for (const day of ['tue', 'wed', 'thu', 'fri'] as const) expect(form(state).days[day]).toEqual(monday);
    expect(form(state).days.sat).toEqual([]);
    const after = run(state, { type: 'setHours', day: 'tue', row: 0, end: 'to', value: '16:00' });
    expect(form(after).days.mon[0].to).toBe('17:00');
  });

  it('adds, fills in and removes holidays', () => {
    let state = run(opened(), { type: 'addHoliday' });
    expect(form(state).holidays).toEqual([BERLIN.holidays[0], { date: '', name: '' }]);
    state = run(state, { type: 'setHoliday', index: 1, key: 'date', value: '2026-12-26' }, { type: 'setHoliday', index: 1, key: 'name', value: 'Boxing Day' });
    expect(form(state).holidays[1]).toEqual({ date: '2026-12-26', name: 'Boxing Day' });
    state = run(state, { type: 'removeHoliday', index: 0 });
    expect(form(state).holidays).toEqual([{ date: '2026-12-26', name: 'Boxing Day' }]);
    expect(isCalendarDirty(state)).toBe(true);
  });
});

describe('saving', () => {
  it('shows it saving, then the calendar as the server saved it, nothing unsaved, and says so', () => {
    const edited = { ...run(opened(), { type: 'setHours', day: 'mon', row: 0, end: 'to', value: '12:00' }), error: new Error('old'), notice: 'old' };
    const saving = run(edited, { type: 'saveStarted' });
    expect(saving).toMatchObject({ saving: true, error: null, notice: null });
    const saved: Calendar = { ...BERLIN, ...calendarInput(form(edited)), updatedAt: '2026-11-02T00:00:00.000Z' };
    const answered = run(saving, { type: 'saved', calendar: saved });
    expect(answered.calendar).toBe(saved);
    expect(isCalendarDirty(answered)).toBe(false);
    // Still saving while the other pages' calendars are read again.
    expect(answered.saving).toBe(true);
    expect(run(answered, { type: 'saveFinished', notice: SAVED_NOTICE })).toMatchObject({ saving: false, notice: SAVED_NOTICE });
    expect(run(answered, { type: 'saveFinished', notice: SAVED_NOTICE }, { type: 'dismiss', what: 'notice' }).notice).toBeNull();
  });

  it('shows the server\'s form of what was saved (times trimmed)', () => {
    const state = run(fresh(), { type: 'rename', name: 'Desk' }, { type: 'setHours', day: 'mon', row: 0, end: 'from', value: ' 08:00' });
    const created: Calendar = { ...BERLIN, id: 'cal_2', ...calendarInput(form(state)) };
    const saved = run(state, { type: 'saveStarted' }, { type: 'saved', calendar: created }, { type: 'saveFinished', notice: null });
    expect(form(saved).days.mon[0].from).toBe('08:00');
    expect(saved).toMatchObject({ calendar: created, saving: false, notice: null });
  });

  it('keeps the edits after a failed save, and shows why', () => {
    const edited = run(opened(), { type: 'rename', name: 'Berlin' });
    const error = new ApiError(0, 'network_error', 'Deskflow could not be reached.', [], null);
    const failed = run(edited, { type: 'saveStarted' }, { type: 'saveFailed', error, form: form(edited) });
    expect(failed).toMatchObject({ saving: false, error, form: form(edited) });
    expect(isCalendarDirty(failed)).toBe(true);
    expect(run(failed, { type: 'dismiss', what: 'error' }).error).toBeNull();
  });

  it('puts the server\'s objections beside the interval, holiday and input they name, the rest in the banner', () => {
    const state = run(fresh(), { type: 'setHours', day: 'wed', row: 0, end: 'to', value: '10:00' }, { type: 'addHoliday' });
    const error = refused([
      { path: 'name', message: 'name must not be blank' },
      { path: 'hours.2', message: 'an interval must not cross midnight' },
      { path: 'holidays.0.date', message: 'date must be a date' },
      { path: 'color', message: 'unknown key' },
    ]);
    const failed = run(state, { type: 'saveStarted' }, { type: 'saveFailed', error, form: form(state) });
    expect(messagesFor(failed, 'name')).toEqual(['name must not be blank']);
    expect(messagesFor(failed, 'hours.wed.0')).toEqual(['an interval must not cross midnight']);
    expect(messagesFor(failed, 'hours.mon.0')).toEqual([]);
    expect(messagesFor(failed, 'holidays.0.date')).toEqual(['date must be a date']);
    expect((failed.error as ApiError).message).toBe('Not saved: The calendar is not valid.');
    expect((failed.error as ApiError).details).toEqual([{ path: 'color', message: 'unknown key' }]);
    // They stay while the user corrects the form, and go once it is saved.
    const corrected = run(failed, { type: 'setHours', day: 'wed', row: 0, end: 'to', value: '24:00' });
    expect(messagesFor(corrected, 'hours.wed.0')).toHaveLength(1);
    const saved = run(corrected, { type: 'saveStarted' }, { type: 'saved', calendar: { ...BERLIN, ...calendarInput(form(corrected)) } });
    expect(messagesFor(saved, 'hours.wed.0')).toEqual([]);
  });
});

describe('deleting', () => {
  it('asks first; closing the question keeps the calendar', () => {
    const asking = run(opened(), { type: 'askDelete' });
    expect(asking.deleting).toBe(true);
    expect(run(asking, { type: 'dismiss', what: 'deleting' }).deleting).toBe(false);
  });
});
