import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import type { Calendar } from './entity.ts';
import { holidaySchema, openingInterval } from './schema.ts';

/** A calendar as every answer shows it: its definition as given, and when it was made and changed. */
export const publicCalendar = z
  .strictObject({
    id: uuid(),
    name: z.string(),
    timeZone: z.string().meta({ description: 'An IANA time zone name.' }),
    hours: z.array(openingInterval),
    holidays: z.array(holidaySchema),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Calendar' });
export type PublicCalendar = z.output<typeof publicCalendar>;

export const calendarEnvelope = z.strictObject({ calendar: publicCalendar });
export const calendarList = z.strictObject({ calendars: z.array(publicCalendar).meta({ description: 'Newest first.' }) });

export function presentCalendar(c: Calendar): PublicCalendar {
  return {
    id: c.id,
    name: c.name,
    timeZone: c.timeZone,
    hours: c.hours,
    holidays: c.holidays,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
