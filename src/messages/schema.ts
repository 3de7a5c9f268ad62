import { z } from 'zod';
import { email, nullableText, oneOf, text } from '../http/validate.ts';
import { DIRECTIONS } from './entity.ts';

export const addMessageBody = z.strictObject({
  body: text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }),
  senderEmail: email('senderEmail'),
  senderName: nullableText({ max: 200, label: 'senderName' }).optional(),
  direction: oneOf(DIRECTIONS, 'direction').optional(),
  bodyHtml: nullableText({ max: 200_000, label: 'bodyHtml' }).optional(),
});
export type AddMessageInput = z.infer<typeof addMessageBody>;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))$/i;

/**
 * A `before` timestamp: a date (midnight UTC) or a date-time with `Z` or an offset. Returns the
 * instant, or null when malformed, calendar-impossible or outside years 0001-9999 (in UTC). The
 * offset is applied here rather than by PostgreSQL, which refuses offsets beyond ±15:59. Stored
 * times have millisecond precision, so a finer instant is rounded up: "strictly before" stays exact.
 */
export function parseBeforeTimestamp(value: string): Date | null {
  const date = ISO_DATE.exec(value);
  const dateTime = date ? null : ISO_DATE_TIME.exec(value);
  const m = date ?? dateTime;
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (!dateTime) return utc(year, month, day, 0, 0, 0);
  const [hour, minute, second] = [Number(dateTime[4]), Number(dateTime[5]), Number(dateTime[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (dateTime[8].toUpperCase() !== 'Z') {
    const [offsetHour, offsetMinute] = [Number(dateTime[9]), Number(dateTime[10])];
    if (offsetHour > 23 || offsetMinute > 59) return null;
    offsetMinutes = (dateTime[8].startsWith('-') ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const fraction = (dateTime[7] ?? '').padEnd(3, '0');
  const ms = Number(fraction.slice(0, 3)) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  const at = new Date(utc(year, month, day, hour, minute, second).getTime() + ms - offsetMinutes * 60_000);
  // An offset can carry the instant out of years 0001-9999 (UTC), which the query cannot express.
  return at.getUTCFullYear() >= 1 && at.getUTCFullYear() <= 9999 ? at : null;
}

/** Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. */
function utc(year: number, month: number, day: number, hour: number, minute: number, second: number): Date {
  const d = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export const listMessagesQuery = z.object({
  limit: z
    .string({ error: () => 'limit must be given once, as an integer from 1 to 200.' })
    .regex(/^[0-9]+$/, 'limit must be an integer from 1 to 200.')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 200, 'limit must be an integer from 1 to 200.')
    .default(100),
  before: z.string({ error: () => 'before must be given once.' }).optional(),
});
