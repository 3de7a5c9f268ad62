import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import {
  addOpenTime,
  businessSchedule,
  CalendarError,
  conditionCalendarIds,
  evaluateCondition,
  formatDuration,
  PatternError,
  type ConditionData,
  type RunContext,
} from '../graph/index.ts';
import { businessCalendarOf, byId, readCalendars } from './store.ts';

// What runs ask of calendars, outside the workflow sandbox (the activities call these): the
// answers depend on the time zone data of the process, so the run records them in its history
// instead of computing them itself (docs/automations.md, "Business hours").

/** A business-time wait as it begins: its deadline, and the calendar's name for the step and the Web UI. */
export type BusinessDeadline = { until: string; calendarName: string };

/** A calculation a run cannot do; no retry makes it possible, so the node fails with this message. */
const cannot = (message: string) => new AppError(422, 'calendar_calculation_failed', message);

/**
 * The deadline of a wait of `seconds` of open time of the calendar, starting at `from` (counting
 * from the next opening when `from` is closed). Reads the calendar as it is now; a deleted one
 * still answers for the runs that name it.
 */
export async function businessDeadline(em: EntityManager, input: { workspaceId: string; calendarId: string; from: string; seconds: number }): Promise<BusinessDeadline> {
  const [calendar] = await readCalendars(em, [input.calendarId], input.workspaceId);
  if (!calendar) throw cannot(`There is no calendar "${input.calendarId}" in this workspace.`);
  try {
    const until = addOpenTime(businessSchedule(businessCalendarOf(calendar)), Date.parse(input.from), Math.round(input.seconds * 1000));
    return { until: new Date(until).toISOString(), calendarName: calendar.name };
  } catch (err) {
    if (err instanceof CalendarError) throw cannot(`A wait of ${formatDuration(input.seconds * 1000)} of open time of calendar "${calendar.name}" cannot end: ${err.message}.`);
    throw err;
  }
}

/**
 * A condition that names calendars, evaluated at `now` (the run's time) with the calendars of
 * the workspace as they are now. A condition that cannot be evaluated (a calendar or a pattern
 * it cannot use) is an error whose message says why.
 */
export async function evaluateWithCalendars(em: EntityManager, input: { workspaceId: string; condition: ConditionData; context: RunContext; now: string }): Promise<boolean> {
  const calendars = byId(await readCalendars(em, conditionCalendarIds(input.condition), input.workspaceId));
  try {
    return evaluateCondition(input.condition, input.context, { now: Date.parse(input.now), calendars });
  } catch (err) {
    if (err instanceof CalendarError || err instanceof PatternError) throw cannot(err.message);
    throw err;
  }
}
