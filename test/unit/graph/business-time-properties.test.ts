import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addOpenTime,
  businessSchedule,
  isOpenAt,
  openStretches,
  openTimeBetween,
  subtractOpenTime,
  WEEKDAYS,
  type BusinessCalendar,
} from '../../../src/graph/index.ts';

// The business-time arithmetic against the most literal reading of a calendar: minute by
// minute, ask Intl for the local date and time, and call the minute open when the date is no
// holiday and the time falls in one of the weekday's intervals. Random calendars in zones with
// daylight saving at odd hours, at midnight, by half an hour, south of the equator and far
// from UTC; windows often placed over one of the zone's offset changes.

const MINUTE = 60_000;
const DAY = 86_400_000;

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Pacific/Auckland',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe', // daylight saving of half an hour
  'Pacific/Chatham', // +12:45 / +13:45
  'America/Sao_Paulo', // changed at midnight until 2019
  'America/Havana', // changes at midnight (00:00 → 01:00, 01:00 → 00:00)
  'America/Santiago', // changes at 24:00
  'Asia/Tehran', // daylight saving at midnight until 2022
  'America/St_Johns', // -03:30
  'Europe/Dublin', // "negative" daylight saving in the tz data
  'Africa/Casablanca', // an hour less during Ramadan
  'UTC',
] as const;

/** The minute-by-minute reference: open or not, for each minute of [from, from + minutes·60 s). */
function referenceMinutes(calendar: BusinessCalendar, from: number, minutes: number): boolean[] {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: calendar.timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'short',
  });
  const holidays = new Set(calendar.holidays.map((h) => h.date));
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  const open: boolean[] = [];
  for (let i = 0; i < minutes; i++) {
    const parts = Object.fromEntries(format.formatToParts(from + i * MINUTE).map((p) => [p.type, p.value]));
    const date = `${parts.year}-${parts.month}-${parts.day}`;
    const day = parts.weekday.toLowerCase().slice(0, 3);
    const minute = Number(parts.hour) * 60 + Number(parts.minute);
    open.push(!holidays.has(date) && calendar.hours.some((h) => h.day === day && toMinutes(h.from) <= minute && minute < toMinutes(h.to)));
  }
  return open;
}

/** The reference's open stretches, as [start, end) instants. */
function referenceStretches(open: boolean[], from: number): Array<[number, number]> {
  const stretches: Array<[number, number]> = [];
  open.forEach((isOpen, i) => {
    if (!isOpen) return;
    const last = stretches[stretches.length - 1];
    const at = from + i * MINUTE;
    if (last && last[1] === at) last[1] = at + MINUTE;
    else stretches.push([at, at + MINUTE]);
  });
  return stretches;
}

/** Offset changes of a zone in a year, found by the hour (independent of the code under test). */
function offsetChanges(zone: string, year: number): number[] {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const offset = (t: number) => format.formatToParts(t).find((p) => p.type === 'timeZoneName')!.value;
  const changes: number[] = [];
  let before = offset(Date.UTC(year, 0, 1));
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 3_600_000) {
    const now = offset(t);
    if (now !== before) changes.push(t);
    before = now;
  }
  return changes;
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Up to three intervals a day, from boundaries on the minute grid (often on the hour, often 00:00 or 24:00). */
const dayHours = fc
  .uniqueArray(fc.oneof(fc.constantFrom(0, 1440, 120, 150, 180, 540, 1020), fc.integer({ min: 0, max: 48 }).map((h) => h * 30), fc.integer({ min: 0, max: 1440 })), {
    maxLength: 6,
  })
  .map((points) => {
    const sorted = [...points].sort((a, b) => a - b);
    const intervals: Array<{ from: string; to: string }> = [];
    for (let i = 0; i + 1 < sorted.length; i += 2) intervals.push({ from: hhmm(sorted[i]), to: hhmm(sorted[i + 1]) });
    return intervals.filter((i) => i.from < i.to && i.from !== '24:00');
  });

/** A random calendar and a window of six days, often over one of its zone's offset changes. */
const scenario = fc
  .record({
    timeZone: fc.constantFrom(...ZONES),
    week: fc.array(dayHours, { minLength: 7, maxLength: 7 }),
    year: fc.integer({ min: 2012, max: 2032 }),
    change: fc.nat(),
    nearChange: fc.boolean(),
    shiftHours: fc.integer({ min: -72, max: 24 }),
    dayOfYear: fc.integer({ min: 0, max: 360 }),
    holidayOffsets: fc.uniqueArray(fc.integer({ min: -1, max: 6 }), { maxLength: 3 }),
  })
  .map((s) => {
    const hours = s.week.flatMap((intervals, d) => intervals.map((i) => ({ day: WEEKDAYS[d], ...i })));
    const changes = s.nearChange ? offsetChanges(s.timeZone, s.year) : [];
    const centre = changes.length > 0 ? changes[s.change % changes.length] : Date.UTC(s.year, 0, 1) + s.dayOfYear * DAY;
    const from = Math.floor((centre + s.shiftHours * 3_600_000) / MINUTE) * MINUTE;
    const holidays = s.holidayOffsets.map((k) => ({ date: new Date(from + k * DAY).toISOString().slice(0, 10), name: `holiday ${k}` }));
    const calendar: BusinessCalendar = { timeZone: s.timeZone, hours, holidays };
    return { calendar, from };
  });

const WINDOW_MINUTES = 6 * 24 * 60;

/** What the reference says about one random calendar, scanned once. */
function check(calendar: BusinessCalendar, from: number, spans: Array<[number, number]>, startMinute: number, openMinutes: number): void {
  const schedule = businessSchedule(calendar);
  const open = referenceMinutes(calendar, from, WINDOW_MINUTES);

  // Open stretches, open instants, open time between two instants.
  expect(openStretches(schedule, from, from + WINDOW_MINUTES * MINUTE)).toEqual(referenceStretches(open, from));
  for (const [a, b] of spans) {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    expect(isOpenAt(schedule, from + lo * MINUTE)).toBe(lo < WINDOW_MINUTES && open[lo]);
    expect(openTimeBetween(schedule, from + lo * MINUTE, from + hi * MINUTE)).toBe(open.slice(lo, hi).filter(Boolean).length * MINUTE);
  }

  // Adding: the end of the minute in which the count of open minutes from the start reaches openMinutes.
  const start = from + startMinute * MINUTE;
  let count = 0;
  let expectedEnd: number | undefined;
  for (let i = startMinute; i < WINDOW_MINUTES && expectedEnd === undefined; i++) {
    if (open[i] && ++count === openMinutes) expectedEnd = from + (i + 1) * MINUTE;
  }
  if (expectedEnd !== undefined) {
    expect(addOpenTime(schedule, start, openMinutes * MINUTE)).toBe(expectedEnd);
    expect(openTimeBetween(schedule, start, expectedEnd)).toBe(openMinutes * MINUTE);
  }

  // Subtracting: the start of the minute in which the count backward from the end reaches openMinutes.
  const end = from + (WINDOW_MINUTES - startMinute) * MINUTE;
  count = 0;
  let expectedStart: number | undefined;
  for (let i = WINDOW_MINUTES - startMinute - 1; i >= 0 && expectedStart === undefined; i--) {
    if (open[i] && ++count === openMinutes) expectedStart = from + i * MINUTE;
  }
  if (expectedStart !== undefined) expect(subtractOpenTime(schedule, end, openMinutes * MINUTE)).toBe(expectedStart);
}

describe('business-time arithmetic', () => {
  it('agrees with a minute-by-minute reference on random calendars: open stretches and instants, open time, adding and subtracting it', () => {
    fc.assert(
      fc.property(
        scenario,
        fc.array(fc.tuple(fc.nat(WINDOW_MINUTES), fc.nat(WINDOW_MINUTES)), { minLength: 5, maxLength: 5 }),
        fc.nat(WINDOW_MINUTES / 2),
        fc.integer({ min: 1, max: 1500 }),
        ({ calendar, from }, spans, startMinute, openMinutes) => check(calendar, from, spans, startMinute, openMinutes),
      ),
      { numRuns: 50 },
    );
  });
});
