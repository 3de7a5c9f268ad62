// The Calendars page's form and the API's calendar (console/src/model/calendar-form.ts).
import { describe, expect, it } from 'vitest';
import { calendarForm, calendarInput, hoursSummary, newCalendarForm, placeCalendarIssues } from '../../../console/src/model/calendar-form.ts';
import { createCalendarBody } from '../../../src/calendars/schema.ts';
import { toDetails } from '../../../src/http/validate.ts';

const BERLIN = {
  name: 'Berlin office',
  timeZone: 'Europe/Berlin',
  hours: [
    { day: 'mon' as const, from: '09:00', to: '17:00' },
    { day: 'wed' as const, from: '13:00', to: '17:00' },
    { day: 'wed' as const, from: '09:00', to: '12:00' },
    { day: 'fri' as const, from: '22:00', to: '24:00' },
    { day: 'sat' as const, from: '00:00', to: '06:00' },
  ],
  holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
};

/** The answer the server gives to a body: validated by its own schema, its problems as it reports them. */
function serverDetails(body: unknown) {
  const result = createCalendarBody.safeParse(body);
  return result.success ? [] : toDetails(result.error);
}

describe('the calendar form', () => {
  it('starts open Monday to Friday, 09:00 to 17:00, in the zone given, which the server accepts', () => {
    const form = newCalendarForm('Europe/Berlin');
    expect(form.days.mon).toEqual([{ from: '09:00', to: '17:00' }]);
    expect(form.days.sat).toEqual([]);
    expect(serverDetails({ ...calendarInput(form), name: 'Desk' })).toEqual([]);
  });

  it('puts intervals on their day in the order given, and sends them day by day', () => {
    const form = calendarForm(BERLIN);
    expect(form.days.wed).toEqual([{ from: '13:00', to: '17:00' }, { from: '09:00', to: '12:00' }]);
    expect(calendarInput(form)).toEqual(BERLIN);
    form.days.tue = [{ from: ' 08:00', to: '12:00 ' }];
    expect(calendarInput(form).hours[1]).toEqual({ day: 'tue', from: '08:00', to: '12:00' });
  });

  it('puts each of the server\'s problems on the row and input it names', () => {
    const form = calendarForm(BERLIN);
    form.days.tue = [{ from: '18:00', to: '10:00' }];
    form.days.wed[1].to = '25:00';
    form.holidays.push({ date: '2026-12-25', name: 'Again' });
    const details = serverDetails(calendarInput(form));
    // hours: mon(0) tue(1) wed(2, 3) fri(4) sat(5)
    expect(details.map((d) => d.path).sort()).toEqual(['holidays.1.date', 'hours.1', 'hours.3.to'].sort());
    const placed = placeCalendarIssues([...details, { path: 'timeZone', message: 'zone' }, { path: '(body)', message: 'whole' }, { path: 'hours.99', message: 'far' }], form);
    expect([...placed.fields.keys()].sort()).toEqual(['holidays.1.date', 'hours.tue.0', 'hours.wed.1.to', 'timeZone'].sort());
    expect(placed.fields.get('holidays.1.date')![0]).toContain('listed twice');
    expect(placed.fields.get('hours.tue.0')![0]).toContain('crosses midnight');
    expect(placed.general.map((i) => i.path)).toEqual(['(body)', 'hours.99']);
  });

  it('places problems of the lists as a whole on the lists', () => {
    const form = newCalendarForm('UTC');
    for (const day of Object.keys(form.days) as Array<keyof typeof form.days>) form.days[day] = [];
    const details = serverDetails({ ...calendarInput(form), name: 'x' });
    expect(details.map((d) => d.path)).toEqual(['hours']);
    expect([...placeCalendarIssues(details, form).fields.keys()]).toEqual(['hours']);
  });
});

describe('hoursSummary', () => {
  it('runs days with the same hours together', () => {
    expect(hoursSummary(calendarInput(newCalendarForm('UTC')).hours)).toBe('Mon–Fri 09:00–17:00');
    expect(hoursSummary(BERLIN.hours)).toBe('Mon 09:00–17:00 · Wed 09:00–12:00, 13:00–17:00 · Fri 22:00–24:00 · Sat 00:00–06:00');
    expect(hoursSummary([...BERLIN.hours, { day: 'tue', from: '09:00', to: '17:00' }]).startsWith('Mon, Tue 09:00–17:00 · Wed')).toBe(true);
    expect(hoursSummary([])).toBe('never open');
  });
});
