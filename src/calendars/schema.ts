import { z } from 'zod';
import { clockMinutes, dayNumber, isValidTimeZone, WEEKDAYS } from '../graph/index.ts';
import { text } from '../http/validate.ts';

export const MAX_INTERVALS = 100;
export const MAX_HOLIDAYS = 1000;

const name = text({ min: 1, max: 200, nonBlank: true, label: 'name' });

const timeZone = z
  .string({ error: (i) => (i.input === undefined ? 'timeZone is required.' : 'timeZone must be a string.') })
  .check((ctx) => {
    if (!isValidTimeZone(ctx.value)) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `timeZone must be an IANA time zone name spelled like Europe/Berlin or America/New_York (not an offset like +02:00), got ${JSON.stringify(ctx.value.slice(0, 100))}.`,
      });
    }
  })
  .meta({ description: 'An IANA time zone name, e.g. `Europe/Berlin`, `Asia/Kolkata`, `UTC`.', example: 'Europe/Berlin' });

const clock = (label: 'from' | 'to') =>
  z
    .string({ error: () => `${label} must be a time of day HH:MM.` })
    .refine((s) => clockMinutes(s, label === 'to') !== undefined, {
      error: () => (label === 'from' ? 'from must be a time of day HH:MM, from 00:00 to 23:59.' : 'to must be a time of day HH:MM, from 00:00 to 24:00.'),
    })
    .meta({ pattern: '^([01][0-9]|2[0-4]):[0-5][0-9]$', example: label === 'from' ? '09:00' : '17:00' });

const interval = z
  .strictObject(
    {
      day: z.enum(WEEKDAYS, { error: () => `day must be one of ${WEEKDAYS.join(', ')}.` }),
      from: clock('from'),
      to: clock('to').meta({ description: 'Not included; `24:00` is the end of the day.' }),
    },
    { error: () => 'each interval must be an object { day, from, to }.' },
  )
  .meta({ id: 'OpeningInterval', description: 'Open on `day` from `from` up to, not including, `to`, in the calendar\'s zone. An interval never crosses midnight.' });

type Interval = z.infer<typeof interval>;
const nextDay = (day: Interval['day']) => WEEKDAYS[(WEEKDAYS.indexOf(day) + 1) % 7];
const show = (i: Interval) => `${i.day} ${i.from}-${i.to}`;

/**
 * Weekly opening hours. Each interval lies within one day (`from` before `to`; a night shift is
 * two intervals, and the answer says which), and a day's intervals do not overlap.
 */
const hours = z
  .array(interval, { error: () => 'hours must be a list of { day, from, to }.' })
  .min(1, 'hours must list at least one interval: a calendar that is never open has no open time to count.')
  .max(MAX_INTERVALS, `hours may list at most ${MAX_INTERVALS} intervals.`)
  .superRefine((list, ctx) => {
    const valid: Array<{ index: number; from: number; to: number; interval: Interval }> = [];
    list.forEach((i, index) => {
      const from = clockMinutes(i.from);
      const to = clockMinutes(i.to, true);
      if (from === undefined || to === undefined) return;
      if (to === 0) {
        ctx.addIssue({ code: 'custom', path: [index, 'to'], message: `${show(i)}: midnight at the end of a day is written 24:00: ${i.day} ${i.from}-24:00.` });
      } else if (from > to) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `${show(i)} crosses midnight; an interval ends on the day it starts, so write it as two intervals: ${i.day} ${i.from}-24:00 and ${nextDay(i.day)} 00:00-${i.to}.`,
        });
      } else if (from === to) {
        ctx.addIssue({ code: 'custom', path: [index], message: `${show(i)} is empty: from must be before to.` });
      } else {
        valid.push({ index, from, to, interval: i });
      }
    });
    for (const day of WEEKDAYS) {
      const sorted = valid.filter((v) => v.interval.day === day).sort((a, b) => a.from - b.from || a.index - b.index);
      for (let k = 1; k < sorted.length; k++) {
        const [before, after] = [sorted[k - 1], sorted[k]];
        if (after.from < before.to) {
          const [first, second] = before.index < after.index ? [before, after] : [after, before];
          ctx.addIssue({ code: 'custom', path: [second.index], message: `${show(second.interval)} overlaps hours[${first.index}] (${show(first.interval)}).` });
        }
      }
    }
  })
  .meta({ description: `1-${MAX_INTERVALS} intervals; several per day are allowed, overlapping ones are not.` });

const holiday = z
  .strictObject(
    {
      date: z
        .string({ error: () => 'date must be a date YYYY-MM-DD.' })
        .refine((s) => dayNumber(s) !== undefined, { error: () => 'date must be a real date YYYY-MM-DD, from 1970 on.' })
        .meta({ format: 'date', example: '2026-12-25' }),
      name: text({ min: 1, max: 200, nonBlank: true, label: 'name' }).meta({ example: 'Christmas Day' }),
    },
    { error: () => 'each holiday must be an object { date, name }.' },
  )
  .meta({ id: 'Holiday', description: 'Closed all day: from the local midnight that starts `date` in the calendar\'s zone to the next.' });

const holidays = z
  .array(holiday, { error: () => 'holidays must be a list of { date, name }.' })
  .max(MAX_HOLIDAYS, `holidays may list at most ${MAX_HOLIDAYS} dates.`)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((h, index) => {
      if (typeof h?.date !== 'string') return;
      const first = seen.get(h.date);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'date'], message: `${h.date} is listed twice (also holidays[${first}]).` });
      else seen.set(h.date, index);
    });
  })
  .meta({ description: `Up to ${MAX_HOLIDAYS} dates, each once.` });

export const createCalendarBody = z.strictObject({
  name,
  timeZone,
  hours,
  holidays: holidays.optional().meta({ description: 'Default: none.' }),
});
export type CreateCalendarInput = z.infer<typeof createCalendarBody>;

export const updateCalendarBody = z
  .strictObject({
    name: name.optional(),
    timeZone: timeZone.optional(),
    hours: hours.optional(),
    holidays: holidays.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one of name, timeZone, hours, holidays.' });
export type UpdateCalendarInput = z.infer<typeof updateCalendarBody>;

export { interval as openingInterval, holiday as holidaySchema };
