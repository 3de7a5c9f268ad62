// Business-time arithmetic (docs/automations.md, "Business hours"): when a calendar's desk is
// open, how much open time lies between two instants, and which instant lies a given amount
// of open time after or before another. Instants in, instants out, milliseconds since the Unix
// epoch; the calendar names its IANA zone.
//
// An instant is open when its local date in the calendar's zone is not a holiday and its local
// time of day falls in one of that weekday's intervals, from `from` up to (not including) `to`.
// Everything below follows from that rule, daylight saving included: on a spring-forward day an
// interval 01:00-04:00 is open two hours (03:00 follows 02:00), on a fall-back day four (02:00
// to 03:00 comes twice), and an interval wholly inside the skipped hour never opens.
//
// The calculation goes through the open stretches of the timeline a window at a time: within a
// stretch of constant UTC offset (zone.ts) a local interval is one plain range of instants.

import { daysFromCivil, daysInMonth } from './dates.ts';
import type { BusinessCalendar, Weekday } from './types.ts';
import { WEEKDAYS } from './types.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS, ZoneRules } from './zone.ts';

/** A calculation cannot be done: an unknown zone, or no answer within the search horizon. */
export class CalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalendarError';
  }
}

/** How far a calculation looks for open time: ten years (in days) either way. */
export const SEARCH_HORIZON_DAYS = 3_653;
const WINDOW_MS = 28 * DAY_MS;
/** Every local date whose wall times can fall in a window: offsets stay within ±18 hours. */
const MAX_OFFSET_MS = 18 * HOUR_MS;

/** An open stretch of the timeline: [start, end). */
export type OpenStretch = readonly [start: number, end: number];

/** A calendar made ready for calculations (its zone, intervals per weekday, holidays as day numbers). */
export interface BusinessSchedule {
  readonly zone: ZoneRules;
  /** Index 0 is Monday; each day's intervals as [from, to) in milliseconds after local midnight. */
  readonly days: ReadonlyArray<ReadonlyArray<readonly [number, number]>>;
  /** Local dates that are holidays, as days since 1970-01-01. */
  readonly holidays: ReadonlySet<number>;
}

/** `HH:MM` as minutes after midnight (00:00-23:59, and 24:00 when `allowEndOfDay`); undefined otherwise. */
export function clockMinutes(text: string, allowEndOfDay = false): number | undefined {
  const m = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(text);
  if (m === null) return undefined;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  if (minutes > 24 * 60 || (minutes === 24 * 60 && !allowEndOfDay)) return undefined;
  return minutes;
}

/** `YYYY-MM-DD` (a real date, years 1970-9999) as days since 1970-01-01; undefined otherwise. */
export function dayNumber(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day);
}

/** The weekday of a day number (day 0, 1970-01-01, was a Thursday). */
export function weekdayOf(day: number): Weekday {
  return WEEKDAYS[(((day + 3) % 7) + 7) % 7];
}

/**
 * Prepares a calendar for calculations. Intervals that break the calendar's rules (validated
 * when a calendar is saved) are skipped rather than trusted; an unknown zone is a CalendarError.
 */
export function businessSchedule(calendar: BusinessCalendar): BusinessSchedule {
  let zone: ZoneRules;
  try {
    zone = new ZoneRules(calendar.timeZone);
  } catch {
    throw new CalendarError(`the time zone ${JSON.stringify(calendar.timeZone)} is not known here`);
  }
  const days: Array<Array<readonly [number, number]>> = WEEKDAYS.map(() => []);
  for (const interval of calendar.hours) {
    const index = WEEKDAYS.indexOf(interval.day);
    const from = clockMinutes(interval.from);
    const to = clockMinutes(interval.to, true);
    if (index === -1 || from === undefined || to === undefined || from >= to) continue;
    days[index].push([from * MINUTE_MS, to * MINUTE_MS]);
  }
  for (const day of days) day.sort((a, b) => a[0] - b[0]);
  const holidays = new Set<number>();
  for (const holiday of calendar.holidays) {
    const day = dayNumber(holiday.date);
    if (day !== undefined) holidays.add(day);
  }
  return { zone, days, holidays };
}

/** The open stretches within [from, to), in order, adjacent ones merged. */
export function openStretches(schedule: BusinessSchedule, from: number, to: number): OpenStretch[] {
  if (!(to > from)) return [];
  const pieces: Array<[number, number]> = [];
  const offsets = schedule.zone.stretches(from, to);
  const firstDay = Math.floor((from - MAX_OFFSET_MS) / DAY_MS);
  const lastDay = Math.floor((to + MAX_OFFSET_MS) / DAY_MS);
  for (let day = firstDay; day <= lastDay; day++) {
    if (schedule.holidays.has(day)) continue;
    const midnight = day * DAY_MS;
    for (const [open, close] of schedule.days[(((day + 3) % 7) + 7) % 7]) {
      // The instants whose wall time is in [midnight + open, midnight + close), stretch by stretch.
      for (const { start, end, offset } of offsets) {
        const s = Math.max(start, midnight + open - offset);
        const e = Math.min(end, midnight + close - offset);
        if (e > s) pieces.push([s, e]);
      }
    }
  }
  pieces.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const piece of pieces) {
    const last = merged[merged.length - 1];
    if (last !== undefined && piece[0] <= last[1]) last[1] = Math.max(last[1], piece[1]);
    else merged.push([piece[0], piece[1]]);
  }
  return merged;
}

/** Whether the desk is open at `instant`. */
export function isOpenAt(schedule: BusinessSchedule, instant: number): boolean {
  return openStretches(schedule, instant, instant + 1).length > 0;
}

/** Open time in [from, to), in milliseconds (0 when to is not after from). */
export function openTimeBetween(schedule: BusinessSchedule, from: number, to: number): number {
  let total = 0;
  for (let window = from; window < to; window += WINDOW_MS) {
    for (const [s, e] of openStretches(schedule, window, Math.min(window + WINDOW_MS, to))) total += e - s;
  }
  return total;
}

/**
 * The instant at which `amount` milliseconds of open time have passed since `from`. Counting
 * starts at the next opening when `from` is closed; an amount that ends exactly at a closing
 * time ends there. A CalendarError when the horizon holds less open time than that.
 */
export function addOpenTime(schedule: BusinessSchedule, from: number, amount: number): number {
  let left = Math.max(0, amount);
  const horizon = from + SEARCH_HORIZON_DAYS * DAY_MS;
  for (let window = from; window < horizon; window += WINDOW_MS) {
    for (const [s, e] of openStretches(schedule, window, Math.min(window + WINDOW_MS, horizon))) {
      if (left <= e - s) return s + left;
      left -= e - s;
    }
  }
  throw new CalendarError(`the calendar is open less than ${formatDuration(amount)} in the ten years after ${isoInstant(from)}`);
}

/**
 * The latest instant before which at least `amount` milliseconds of open time lie between it
 * and `to`: an instant t has `open(t, to) ≥ amount` exactly when t ≤ the answer. -Infinity when
 * the horizon before `to` holds less open time than that.
 */
export function subtractOpenTime(schedule: BusinessSchedule, to: number, amount: number): number {
  let left = Math.max(0, amount);
  const horizon = to - SEARCH_HORIZON_DAYS * DAY_MS;
  for (let window = to; window > horizon; window -= WINDOW_MS) {
    const stretches = openStretches(schedule, Math.max(window - WINDOW_MS, horizon), window);
    for (let i = stretches.length - 1; i >= 0; i--) {
      const [s, e] = stretches[i];
      if (left <= e - s) return e - left;
      left -= e - s;
    }
  }
  return Number.NEGATIVE_INFINITY;
}

/** `2026-03-27T15:50:00.000Z` without the Date object (src/graph reads no clock). */
export function isoInstant(instant: number): string {
  const day = Math.floor(instant / DAY_MS);
  const ms = instant - day * DAY_MS;
  const [year, month, date] = civilFromDays(day);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(year, 4)}-${pad(month)}-${pad(date)}T${pad(Math.floor(ms / HOUR_MS))}:${pad(Math.floor((ms % HOUR_MS) / MINUTE_MS))}:${pad(Math.floor((ms % MINUTE_MS) / 1000))}.${pad(Math.floor(ms % 1000), 3)}Z`;
}

/** "16 hours", "90 minutes", "45 seconds": a duration as people write it. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (seconds >= 3600 && seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds >= 60 && seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

/** Year, month, day of a day number (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}
