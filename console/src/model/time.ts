// Durations and instants for people: "16 h" beside a number of seconds, a wall time in a
// chosen zone turned into the instant a dry run is asked about, and an instant shown in a
// calendar's zone. Pure (the clock and the browser's zone are passed in); unit-tested in
// test/unit/console.

import { ZoneRules } from '../../../src/graph/zone.ts';

/**
 * `57600` → `16 h`, `5400` → `1 h 30 min`, `144000` → `1 d 16 h`; with `openTime`, hours only
 * (a day of open time is not a day) and said so: `40 h of open time`. Null for no duration.
 */
export function durationHint(seconds: unknown, openTime = false): string | null {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return null;
  const whole = Math.floor(seconds);
  const fraction = Math.round((seconds - whole) * 1000) / 1000;
  const days = openTime ? 0 : Math.floor(whole / 86_400);
  const hours = Math.floor((whole - days * 86_400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = (whole % 60) + fraction;
  const parts = [days && `${days} d`, hours && `${hours} h`, minutes && `${minutes} min`, secs && `${secs} s`].filter(Boolean);
  return `${parts.join(' ')}${openTime ? ' of open time' : ''}`;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

function offsetText(offsetMs: number): string {
  const minutes = Math.round(offsetMs / 60_000);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/**
 * The instant a wall time (`2026-03-06T16:50`, as a datetime-local input gives it) names in
 * `timeZone`, as ISO 8601 with that zone's offset (`2026-03-06T16:50:00+01:00`). A wall time
 * the zone skips (the hour clocks spring forward) is read with the offset before the change,
 * so it lands after it; one it repeats, as the first. Undefined for text that is no wall time
 * or a zone the browser does not know.
 */
export function wallTimeToInstant(local: string, timeZone: string): string | undefined {
  const m = LOCAL.exec(local);
  if (!m) return undefined;
  let rules: ZoneRules;
  try {
    rules = new ZoneRules(timeZone);
  } catch {
    return undefined;
  }
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  // The offsets a day either side: one of them is in force at the wall time, unless the zone skips it.
  const early = wall - rules.offsetAt(wall - 86_400_000);
  const late = wall - rules.offsetAt(wall + 86_400_000);
  const instant = rules.wallAt(early) === wall || rules.wallAt(late) !== wall ? early : late;
  const shown = new Date(rules.wallAt(instant));
  return `${shown.getUTCFullYear()}-${pad(shown.getUTCMonth() + 1)}-${pad(shown.getUTCDate())}T${pad(shown.getUTCHours())}:${pad(shown.getUTCMinutes())}:${pad(shown.getUTCSeconds())}${offsetText(rules.offsetAt(instant))}`;
}

/** `Fri, 6 Mar 2026, 16:50 CET`: an instant in a zone (the browser's when none is given), with the zone's name. */
export function formatInstant(iso: string, timeZone?: string, locale?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', hourCycle: 'h23' };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, ...(timeZone ? { timeZone } : {}) }).format(date);
  } catch {
    return new Intl.DateTimeFormat(locale, options).format(date);
  }
}

/** The IANA zones the browser knows, `UTC` and any of `extra` (a calendar's own spelling), sorted. */
export function timeZoneNames(known: readonly string[], extra: readonly string[] = []): string[] {
  return [...new Set([...known, 'UTC', ...extra.filter(Boolean)])].sort((a, b) => a.localeCompare(b));
}
