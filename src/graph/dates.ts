// ISO 8601 parsing without Date.parse: Date.parse accepts implementation-specific formats
// and reads an offset-less date-time in the machine's local zone, so the API (validating) and
// the workflow sandbox (evaluating) could disagree. Plain arithmetic gives the same answer
// everywhere.

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

export interface IsoOptions {
  /** Require a time of day and an explicit offset (`Z` or `±hh:mm`): an unambiguous instant. */
  requireTimeAndOffset?: boolean;
  /** A date alone is fine (midnight UTC), but a time of day needs an explicit offset. */
  requireOffsetWithTime?: boolean;
  /** Refuse instants outside years 0001-9999 (UTC), which PostgreSQL timestamps cannot be compared with here. */
  storable?: boolean;
}

/**
 * Milliseconds since the Unix epoch for an ISO 8601 date (`2024-05-01`, read as midnight UTC)
 * or date-time (`2024-05-01T09:30`, `…:00Z`, `…:00.123+02:00`; no offset = UTC; `t` and `z`
 * may be lower case, as RFC 3339 allows). Undefined when the text is not one of those forms or
 * names an impossible date (month 13, Feb 30, hour 24, minute 60). A fraction finer than a
 * millisecond is kept: the result may have a fractional part.
 */
export function parseIsoInstant(text: string, options: IsoOptions = {}): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, offset] = m;
  if (options.requireTimeAndOffset === true && (hs === undefined || offset === undefined)) {
    return undefined;
  }
  if (options.requireOffsetWithTime === true && hs !== undefined && offset === undefined) return undefined;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const hour = hs === undefined ? 0 : Number(hs);
  const minute = mis === undefined ? 0 : Number(mis);
  const second = ss === undefined ? 0 : Number(ss);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = frac === undefined ? 0 : Number(`0.${frac}`) * 1000;
  const offsetMinutes = parseOffset(offset);
  if (offsetMinutes === undefined) return undefined;
  const days = daysFromCivil(year, month, day);
  const instant = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis - offsetMinutes * 60_000;
  if (options.storable === true && (instant < FIRST_STORABLE || instant >= AFTER_LAST_STORABLE)) return undefined;
  return instant;
}

/** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z. */
const FIRST_STORABLE = daysFromCivil(1, 1, 1) * 86_400_000;
const AFTER_LAST_STORABLE = daysFromCivil(10_000, 1, 1) * 86_400_000;

function parseOffset(offset: string | undefined): number | undefined {
  if (offset === undefined || offset === 'Z' || offset === 'z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
