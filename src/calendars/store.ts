import type { EntityManager } from '@mikro-orm/postgresql';
import { businessSchedule, calendarReferences, subtractOpenTime, type BusinessCalendar, type CalendarsById, type TicketFilter, type WorkflowGraph } from '../graph/index.ts';
import { Calendar } from './entity.ts';

/** What a calculation reads of a calendar. */
export function businessCalendarOf(calendar: Pick<Calendar, 'timeZone' | 'hours' | 'holidays'>): BusinessCalendar {
  return { timeZone: calendar.timeZone, hours: calendar.hours, holidays: calendar.holidays };
}

/**
 * Reads calendars for runs: those with these ids, by lower-case id, deleted ones included (an
 * execution that names a calendar keeps reading it after it is deleted). Only calendars of
 * `workspaceId` count; omit it to read those of any workspace and match them yourself.
 */
export async function readCalendars(em: EntityManager, ids: Iterable<string>, workspaceId?: string): Promise<Calendar[]> {
  const wanted = [...new Set([...ids].map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  return em.find(Calendar, { id: { $in: wanted }, ...(workspaceId ? { workspace: workspaceId } : {}) });
}

/** The calendars a graph names, as its conditions and waits read them (src/graph's CalendarsById). */
export async function calendarsOfGraph(em: EntityManager, workspaceId: string, graph: WorkflowGraph): Promise<CalendarsById> {
  return byId(await readCalendars(em, calendarReferences(graph).map((r) => r.calendarId), workspaceId));
}

export function byId(calendars: Iterable<Calendar>): CalendarsById {
  const found: Record<string, BusinessCalendar> = {};
  for (const c of calendars) found[c.id.toLowerCase()] = businessCalendarOf(c);
  return found;
}

/**
 * The latest `updatedAt` a ticket may have to be idle for `filter.idleForSeconds` at `now`:
 * in calendar time, or with `filter.calendarId` in that calendar's open time (a ticket is idle
 * when that much open time passed since its last update). Undefined without idleForSeconds.
 * A calendar that cannot be read counts calendar time.
 */
export function idleCutoff(filter: TicketFilter, now: Date, calendars: CalendarsById): Date | undefined {
  if (!filter.idleForSeconds) return undefined;
  const calendar = filter.calendarId ? calendars[filter.calendarId.toLowerCase()] : undefined;
  if (!calendar) return new Date(now.getTime() - filter.idleForSeconds * 1000);
  const cutoff = subtractOpenTime(businessSchedule(calendar), now.getTime(), filter.idleForSeconds * 1000);
  // Not that much open time in ten years: no ticket has been idle that long (0001-01-01, the earliest PostgreSQL compares here).
  return new Date(Number.isFinite(cutoff) ? cutoff : -62_135_596_800_000);
}
