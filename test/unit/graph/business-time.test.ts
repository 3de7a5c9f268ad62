import { describe, expect, it } from 'vitest';
import {
  addOpenTime,
  businessSchedule,
  CalendarError,
  clockMinutes,
  dayNumber,
  isOpenAt,
  isoInstant,
  openStretches,
  openTimeBetween,
  subtractOpenTime,
  weekdayOf,
  type BusinessCalendar,
} from '../../../src/graph/index.ts';

// Business-time arithmetic on the cases people get wrong (docs/automations.md, "Business hours").

const HOUR = 3_600_000;
const MINUTE = 60_000;
const at = (text: string) => Date.parse(text);
const iso = (instant: number) => new Date(instant).toISOString();
const weekdays = (from: string, to: string) => (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, from, to }));
const calendar = (timeZone: string, hours: BusinessCalendar['hours'], holidays: string[] = []) =>
  businessSchedule({ timeZone, hours, holidays: holidays.map((date) => ({ date, name: 'holiday' })) });
const stretches = (schedule: ReturnType<typeof calendar>, from: string, to: string) => openStretches(schedule, at(from), at(to)).map(([s, e]) => [iso(s), iso(e)]);

describe('office hours 09:00-17:00 on weekdays', () => {
  const berlin = calendar('Europe/Berlin', weekdays('09:00', '17:00'));

  it('a ticket created Friday 16:50 reaches 16 open hours on Tuesday 16:50', () => {
    expect(iso(addOpenTime(berlin, at('2026-03-06T16:50:00+01:00'), 16 * HOUR))).toBe('2026-03-10T15:50:00.000Z');
  });

  it('a wait that starts while closed starts counting at the next opening', () => {
    expect(iso(addOpenTime(berlin, at('2026-03-07T12:00:00+01:00'), 1 * HOUR))).toBe('2026-03-09T09:00:00.000Z'); // Saturday → Monday 10:00
    expect(iso(addOpenTime(berlin, at('2026-03-09T06:00:00+01:00'), 30 * MINUTE))).toBe('2026-03-09T08:30:00.000Z');
  });

  it('a wait that ends exactly at closing time ends then, not at the next opening', () => {
    expect(iso(addOpenTime(berlin, at('2026-03-06T16:00:00+01:00'), HOUR))).toBe('2026-03-06T16:00:00.000Z');
  });

  it('a wait spans closed days: 40 open hours from Friday noon end Friday noon a week later', () => {
    expect(iso(addOpenTime(berlin, at('2026-03-06T12:00:00+01:00'), 40 * HOUR))).toBe('2026-03-13T11:00:00.000Z');
  });

  it('is open from `from` up to, not including, `to`', () => {
    expect(isOpenAt(berlin, at('2026-03-09T09:00:00+01:00'))).toBe(true);
    expect(isOpenAt(berlin, at('2026-03-09T08:59:59.999+01:00'))).toBe(false);
    expect(isOpenAt(berlin, at('2026-03-09T16:59:59.999+01:00'))).toBe(true);
    expect(isOpenAt(berlin, at('2026-03-09T17:00:00+01:00'))).toBe(false);
    expect(isOpenAt(berlin, at('2026-03-08T12:00:00+01:00'))).toBe(false); // Sunday
  });

  it('counts open time between two instants, and back from an instant', () => {
    expect(openTimeBetween(berlin, at('2026-03-06T16:00:00+01:00'), at('2026-03-09T10:30:00+01:00'))).toBe(2.5 * HOUR);
    expect(iso(subtractOpenTime(berlin, at('2026-03-09T10:30:00+01:00'), 2.5 * HOUR))).toBe('2026-03-06T15:00:00.000Z'); // Friday 16:00
    // At exactly an opening, the answer is that opening: every earlier instant (Friday evening, the weekend) has as much.
    expect(iso(subtractOpenTime(berlin, at('2026-03-09T10:00:00+01:00'), HOUR))).toBe('2026-03-09T08:00:00.000Z');
  });
});

describe('daylight saving', () => {
  const nights = calendar('Europe/Berlin', [{ day: 'sun', from: '01:00', to: '04:00' }]);

  it('spring forward: 01:00-04:00 on the night 02:00 is skipped is open two hours', () => {
    expect(stretches(nights, '2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z')).toEqual([['2026-03-29T00:00:00.000Z', '2026-03-29T02:00:00.000Z']]);
  });

  it('fall back: 01:00-04:00 on the night 02:00-03:00 comes twice is open four hours', () => {
    expect(stretches(nights, '2026-10-24T00:00:00Z', '2026-10-26T00:00:00Z')).toEqual([['2026-10-24T23:00:00.000Z', '2026-10-25T03:00:00.000Z']]);
  });

  it('an interval inside the skipped hour never opens; one inside the repeated hour opens twice', () => {
    const skipped = calendar('Europe/Berlin', [{ day: 'sun', from: '02:15', to: '02:45' }]);
    expect(stretches(skipped, '2026-03-29T00:00:00Z', '2026-03-30T00:00:00Z')).toEqual([]);
    expect(stretches(skipped, '2026-10-25T00:00:00Z', '2026-10-26T00:00:00Z')).toEqual([
      ['2026-10-25T00:15:00.000Z', '2026-10-25T00:45:00.000Z'],
      ['2026-10-25T01:15:00.000Z', '2026-10-25T01:45:00.000Z'],
    ]);
  });

  it('office hours keep their local times across the change: 9 to 17 is 08:00Z-16:00Z, then 07:00Z-15:00Z', () => {
    const office = calendar('Europe/Berlin', weekdays('09:00', '17:00'));
    // Friday 27 March 2026 16:00 CET + 2 open hours = Monday 30 March 10:00 CEST.
    expect(iso(addOpenTime(office, at('2026-03-27T16:00:00+01:00'), 2 * HOUR))).toBe('2026-03-30T08:00:00.000Z');
    expect(openTimeBetween(office, at('2026-03-23T00:00:00+01:00'), at('2026-04-06T00:00:00+02:00'))).toBe(80 * HOUR);
  });

  it('New York: the Sunday 24-hour desk is open 23 hours in March and 25 in November', () => {
    const sundays = calendar('America/New_York', [{ day: 'sun', from: '00:00', to: '24:00' }]);
    expect(openTimeBetween(sundays, at('2026-03-07T00:00:00Z'), at('2026-03-10T00:00:00Z'))).toBe(23 * HOUR);
    expect(openTimeBetween(sundays, at('2026-10-31T00:00:00Z'), at('2026-11-03T00:00:00Z'))).toBe(25 * HOUR);
  });
});

describe('zones far from UTC', () => {
  it('Pacific/Auckland: Friday 16:50 before daylight saving ends, + 16 open hours = Tuesday 16:50 in NZST', () => {
    const auckland = calendar('Pacific/Auckland', weekdays('09:00', '17:00'));
    // NZDT (+13) ends on Sunday 5 April 2026; Tuesday 7 April is +12.
    expect(iso(addOpenTime(auckland, at('2026-04-03T16:50:00+13:00'), 16 * HOUR))).toBe('2026-04-07T04:50:00.000Z');
    // Its Monday is still Sunday in UTC.
    expect(isOpenAt(auckland, at('2026-04-05T21:30:00Z'))).toBe(true);
  });

  it('Asia/Kolkata: the half hour of +05:30 is kept', () => {
    const kolkata = calendar('Asia/Kolkata', weekdays('09:00', '17:00'));
    expect(stretches(kolkata, '2026-03-09T00:00:00Z', '2026-03-10T00:00:00Z')).toEqual([['2026-03-09T03:30:00.000Z', '2026-03-09T11:30:00.000Z']]);
    expect(iso(addOpenTime(kolkata, at('2026-03-09T11:00:00Z'), HOUR))).toBe('2026-03-10T04:00:00.000Z');
  });
});

describe('several intervals a day, holidays, midnight', () => {
  const split = calendar('Europe/Berlin', [...weekdays('09:00', '12:00'), ...weekdays('13:00', '17:00')], ['2026-12-24', '2026-12-25']);

  it('the lunch break does not count', () => {
    expect(iso(addOpenTime(split, at('2026-03-09T11:00:00+01:00'), 2 * HOUR))).toBe('2026-03-09T13:00:00.000Z'); // 14:00 local
    expect(openTimeBetween(split, at('2026-03-09T00:00:00+01:00'), at('2026-03-10T00:00:00+01:00'))).toBe(7 * HOUR);
  });

  it('holidays are closed all day in the calendar\'s zone', () => {
    expect(isOpenAt(split, at('2026-12-24T10:00:00+01:00'))).toBe(false);
    // Wednesday 23 December 16:00 + 2 open hours: not Thursday or Friday, but Monday 28th 10:00.
    expect(iso(addOpenTime(split, at('2026-12-23T16:00:00+01:00'), 2 * HOUR))).toBe('2026-12-28T09:00:00.000Z');
  });

  it('24:00 runs to midnight and joins the next day\'s 00:00', () => {
    const night = calendar('UTC', [
      { day: 'fri', from: '22:00', to: '24:00' },
      { day: 'sat', from: '00:00', to: '06:00' },
    ]);
    expect(stretches(night, '2026-03-06T00:00:00Z', '2026-03-08T00:00:00Z')).toEqual([['2026-03-06T22:00:00.000Z', '2026-03-07T06:00:00.000Z']]);
  });
});

describe('limits', () => {
  it('a wait longer than ten years of the calendar\'s open time is a CalendarError; looking back that far gives -Infinity', () => {
    const rare = calendar('UTC', [{ day: 'mon', from: '09:00', to: '09:01' }]);
    expect(() => addOpenTime(rare, 0, 1000 * MINUTE)).toThrow(CalendarError);
    expect(() => addOpenTime(rare, 0, 1000 * MINUTE)).toThrow(/open less than 1000 minutes in the ten years after 1970-01-01T00:00:00.000Z/);
    expect(subtractOpenTime(rare, 0, 1000 * MINUTE)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('an unknown zone is a CalendarError', () => {
    expect(() => calendar('Mars/Olympus_Mons', [])).toThrow(CalendarError);
  });

  it('reads clock times, dates and weekdays strictly', () => {
    expect(clockMinutes('09:30')).toBe(570);
    expect(clockMinutes('24:00')).toBeUndefined();
    expect(clockMinutes('24:00', true)).toBe(1440);
    for (const bad of ['9:30', '09:60', '24:01', '25:00', '09:30:00', ' 09:30']) expect(clockMinutes(bad, true)).toBeUndefined();
    expect(dayNumber('1970-01-02')).toBe(1);
    for (const bad of ['2026-02-29', '2026-13-01', '1969-12-31', '2026-1-1']) expect(dayNumber(bad)).toBeUndefined();
    expect(weekdayOf(dayNumber('2026-03-06')!)).toBe('fri');
    expect(isoInstant(at('2026-03-06T15:50:00.123Z'))).toBe('2026-03-06T15:50:00.123Z');
  });
});
