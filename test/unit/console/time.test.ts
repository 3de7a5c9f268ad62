// Durations and instants as the console shows and asks them (console/src/model/time.ts).
import { describe, expect, it } from 'vitest';
import { durationHint, formatInstant, timeZoneNames, wallTimeToInstant } from '../../../console/src/model/time.ts';

describe('durationHint', () => {
  it('says a number of seconds as people do', () => {
    expect(durationHint(57600)).toBe('16 h');
    expect(durationHint(5400)).toBe('1 h 30 min');
    expect(durationHint(90)).toBe('1 min 30 s');
    expect(durationHint(1.5)).toBe('1.5 s');
    expect(durationHint(144000)).toBe('1 d 16 h');
    expect(durationHint(86400 + 61)).toBe('1 d 1 min 1 s');
  });

  it('counts open time in hours only, since a day of open time is not a day', () => {
    expect(durationHint(57600, true)).toBe('16 h of open time');
    expect(durationHint(144000, true)).toBe('40 h of open time');
    expect(durationHint(1800, true)).toBe('30 min of open time');
  });

  it('has nothing to say of no duration', () => {
    for (const v of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, undefined, '60', null]) expect(durationHint(v), String(v)).toBeNull();
  });
});

describe('wallTimeToInstant', () => {
  it('reads a wall time in the zone asked, with the offset in force then', () => {
    expect(wallTimeToInstant('2026-03-06T16:50', 'Europe/Berlin')).toBe('2026-03-06T16:50:00+01:00');
    expect(wallTimeToInstant('2026-07-06T16:50', 'Europe/Berlin')).toBe('2026-07-06T16:50:00+02:00');
    expect(wallTimeToInstant('2026-03-06T09:00:30', 'Asia/Kolkata')).toBe('2026-03-06T09:00:30+05:30');
    expect(wallTimeToInstant('2026-03-06T09:00', 'Pacific/Chatham')).toBe('2026-03-06T09:00:00+13:45');
    expect(wallTimeToInstant('2026-03-06T09:00', 'America/New_York')).toBe('2026-03-06T09:00:00-05:00');
    expect(wallTimeToInstant('2026-03-06T09:00', 'UTC')).toBe('2026-03-06T09:00:00+00:00');
  });

  it('lands after a skipped hour, and on the first of a repeated one', () => {
    // Berlin springs forward at 02:00 on 2026-03-29 (02:30 does not happen) and falls back at 03:00 on 2026-10-25.
    expect(wallTimeToInstant('2026-03-29T02:30', 'Europe/Berlin')).toBe('2026-03-29T03:30:00+02:00');
    expect(wallTimeToInstant('2026-10-25T02:30', 'Europe/Berlin')).toBe('2026-10-25T02:30:00+02:00');
    expect(wallTimeToInstant('2026-10-25T03:30', 'Europe/Berlin')).toBe('2026-10-25T03:30:00+01:00');
  });

  it('refuses what is not a wall time, or a zone nobody knows', () => {
    expect(wallTimeToInstant('2026-02-30T09:00', 'UTC')).toBeUndefined();
    expect(wallTimeToInstant('2026-03-06 09:00', 'UTC')).toBeUndefined();
    expect(wallTimeToInstant('', 'UTC')).toBeUndefined();
    expect(wallTimeToInstant('2026-03-06T09:00', 'Mars/Olympus_Mons')).toBeUndefined();
  });
});

describe('formatInstant', () => {
  it('shows an instant in the zone asked, with its name', () => {
    const shown = formatInstant('2026-03-10T15:50:00.000Z', 'Europe/Berlin', 'en-GB');
    expect(shown).toContain('16:50');
    expect(shown).toContain('Tue');
    expect(shown).toContain('10 Mar 2026');
    expect(formatInstant('2026-03-10T15:50:00.000Z', 'Asia/Kolkata', 'en-GB')).toContain('21:20');
    expect(formatInstant('not a date')).toBe('not a date');
  });
});

describe('timeZoneNames', () => {
  it('lists the zones known, UTC and a calendar\'s own spelling, once each, sorted', () => {
    expect(timeZoneNames(['Europe/Berlin', 'Asia/Calcutta'], ['Asia/Kolkata', 'Europe/Berlin', ''])).toEqual(['Asia/Calcutta', 'Asia/Kolkata', 'Europe/Berlin', 'UTC']);
  });
});
