// The UTC offsets of an IANA time zone, read from the runtime's Intl (its ICU time zone data).
// Instants are milliseconds since the Unix epoch; a "wall" time is the zone's local date and
// time written as if it were UTC (so wall − instant is the offset in force).
//
// Intl answers one question: the local date and time at an instant. Where the offset changes
// (daylight saving, a zone changing its rules) is found by sampling every few hours and
// bisecting between two samples that disagree, down to the second (tz data changes offsets on
// whole seconds). Two changes less than SAMPLE_MS apart that cancel out would go unseen; the
// time zone database has none since 1970.

import { daysFromCivil } from './dates.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const SAMPLE_MS = 6 * HOUR_MS;

/** A stretch of time over which the zone's offset stays the same: [start, end). */
export interface OffsetStretch {
  start: number;
  end: number;
  /** Wall time minus instant, in milliseconds. */
  offset: number;
}

/** Offsets of one zone. Remembers the offsets it has read, so keep one per calculation. */
export class ZoneRules {
  readonly name: string;
  readonly #format: Intl.DateTimeFormat;
  readonly #samples = new Map<number, number>();

  /** Throws a RangeError for a name the runtime does not know. */
  constructor(name: string) {
    this.name = name;
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The offset in force at `instant` (milliseconds; whole seconds). */
  offsetAt(instant: number): number {
    const second = Math.floor(instant / 1000) * 1000;
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let sec = 0;
    let bc = false;
    for (const part of this.#format.formatToParts(second)) {
      switch (part.type) {
        case 'year':
          year = Number(part.value);
          break;
        case 'month':
          month = Number(part.value);
          break;
        case 'day':
          day = Number(part.value);
          break;
        case 'hour':
          hour = Number(part.value) % 24;
          break;
        case 'minute':
          minute = Number(part.value);
          break;
        case 'second':
          sec = Number(part.value);
          break;
        case 'era':
          bc = part.value.startsWith('B');
          break;
        default:
          break;
      }
    }
    const wall = daysFromCivil(bc ? 1 - year : year, month, day) * DAY_MS + hour * HOUR_MS + minute * MINUTE_MS + sec * 1000;
    return wall - second;
  }

  /** The zone's local date and time at `instant`, as a wall time. */
  wallAt(instant: number): number {
    return instant + this.offsetAt(instant);
  }

  /** Stretches of constant offset that together cover [from, to), in order. */
  stretches(from: number, to: number): OffsetStretch[] {
    const result: OffsetStretch[] = [];
    let start = from;
    let offset = this.offsetAt(from);
    // The latest instant known to have `offset`; the next sample is the next multiple of SAMPLE_MS.
    let known = from;
    while (known < to) {
      const end = Math.min(Math.floor(known / SAMPLE_MS) * SAMPLE_MS + SAMPLE_MS, to);
      const endOffset = this.#sampleAt(end);
      while (endOffset !== offset) {
        const change = this.#changeBetween(known, end, offset);
        if (change > start) result.push({ start, end: change, offset });
        start = change;
        known = change;
        offset = this.offsetAt(change);
      }
      known = end;
    }
    if (to > start) result.push({ start, end: to, offset });
    return result;
  }

  #sampleAt(instant: number): number {
    let offset = this.#samples.get(instant);
    if (offset === undefined) {
      offset = this.offsetAt(instant);
      this.#samples.set(instant, offset);
    }
    return offset;
  }

  /** The first whole second in (low, high] whose offset is not `before`, the offset at `low` (and not at `high`). */
  #changeBetween(low: number, high: number, before: number): number {
    let lo = Math.floor(low / 1000);
    let hi = Math.floor(high / 1000);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.offsetAt(mid * 1000) === before) lo = mid;
      else hi = mid;
    }
    return hi * 1000;
  }
}
