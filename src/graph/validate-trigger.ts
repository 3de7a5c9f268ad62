// Validation of the trigger node's data. Event triggers carry only their type (and a label);
// a scheduled trigger also carries its schedule and an optional ticket filter
// (docs/automations.md, "Schedules").

import { isCalendarId } from './calendar-refs.ts';
import { cronProblem } from './cron.ts';
import { childPath } from './issues.ts';
import type { Scope } from './issues.ts';
import { isRecord, quote } from './text.ts';
import { TICKET_PRIORITIES, TICKET_STATUSES, TRIGGER_TYPES } from './types.ts';
import type { TriggerType } from './types.ts';
import { checkKeys, checkLabel, checkNodeType, checkNumber, checkStringValue, requiredPath } from './validate-fields.ts';

/** What a scheduled trigger node takes besides triggerType and label. */
export const SCHEDULE_PARAMETERS: readonly string[] = ['cron', 'intervalSeconds', 'timezone', 'ticketFilter'];
/** What a schedule's ticketFilter takes; editors build their forms from this list. */
export const TICKET_FILTER_PARAMETERS: readonly string[] = ['status', 'priority', 'tagsAny', 'idleForSeconds', 'calendarId'];
const MAX_FILTER_TAGS = 100;
/** Longest interval or idle time: one year, like delays. */
const MAX_SCHEDULE_SECONDS = 31_536_000;

/**
 * True for an IANA time zone name the runtime knows (Europe/Paris, UTC, Etc/GMT+5). Offsets
 * such as "+02:00", which newer Intl versions also accept, are refused: schedules need a
 * named zone so daylight-saving changes are followed. Intl ignores case but Temporal looks
 * names up as spelled, so a zone's own name in other capitals (europe/paris, utc) is refused;
 * an alias (US/Pacific) resolves to another zone and cannot be checked that way.
 */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || !/^[A-Za-z][A-Za-z0-9_+\-/]{0,99}$/.test(tz)) return false;
  try {
    const resolved = new Intl.DateTimeFormat(undefined, { timeZone: tz }).resolvedOptions().timeZone;
    return resolved === tz || resolved.toLowerCase() !== tz.toLowerCase();
  } catch {
    return false;
  }
}

export function checkTriggerData(scope: Scope, data: Record<string, unknown>, workflowTrigger: TriggerType): void {
  checkLabel(scope, data);
  const typePath = requiredPath(scope, data, 'triggerType');
  if (typePath === undefined) return;
  const type = checkNodeType(scope, typePath, data.triggerType, TRIGGER_TYPES, 'trigger type');
  if (type === undefined) return;
  if (type !== workflowTrigger) {
    scope.issues.add(
      typePath,
      `${scope.who}: triggerType ${quote(type)} does not match the workflow's triggerType ${quote(workflowTrigger)}`,
    );
  }
  if (type !== 'scheduled') {
    checkKeys(scope, data, ['triggerType', 'label']);
    return;
  }
  checkKeys(scope, data, ['triggerType', 'label', ...SCHEDULE_PARAMETERS]);
  checkSchedule(scope, data);
}

function checkSchedule(scope: Scope, data: Record<string, unknown>): void {
  const hasCron = Object.hasOwn(data, 'cron');
  const hasInterval = Object.hasOwn(data, 'intervalSeconds');
  // Neither is allowed: it is the state of a new scheduled workflow (defaultGraph), which has
  // no schedule yet and so never fires on its own. Both is ambiguous.
  if (hasCron && hasInterval) {
    scope.issues.add(scope.path, `${scope.who}: a schedule takes either cron or intervalSeconds, not both`);
  }
  if (hasCron) {
    const cron = checkStringValue(scope, childPath(scope.path, 'cron'), 'cron', data.cron, { min: 1, max: 200 });
    const problem = cron === undefined ? undefined : cronProblem(cron);
    if (problem !== undefined) {
      scope.issues.add(childPath(scope.path, 'cron'), `${scope.who}: cron ${quote(cron)} ${problem}`);
    }
  }
  if (hasInterval) {
    checkNumber(scope, data, 'intervalSeconds', { atLeast: 1, atMost: MAX_SCHEDULE_SECONDS, integer: true });
  }
  if (Object.hasOwn(data, 'timezone')) {
    const tz = data.timezone;
    if (typeof tz !== 'string' || !isValidTimeZone(tz)) {
      scope.issues.add(childPath(scope.path, 'timezone'), `${scope.who}: timezone must be an IANA time zone name spelled like Europe/Paris, got ${quote(tz)}`);
    }
  }
  if (Object.hasOwn(data, 'ticketFilter')) checkTicketFilter(scope, data.ticketFilter);
}

function checkTicketFilter(parent: Scope, filter: unknown): void {
  const scope = { ...parent, path: childPath(parent.path, 'ticketFilter') };
  if (!isRecord(filter)) {
    scope.issues.add(scope.path, `${scope.who}: ticketFilter must be an object`);
    return;
  }
  checkKeys(scope, filter, TICKET_FILTER_PARAMETERS);
  if (Object.hasOwn(filter, 'status')) checkList(scope, filter, 'status', TICKET_STATUSES);
  if (Object.hasOwn(filter, 'priority')) checkList(scope, filter, 'priority', TICKET_PRIORITIES);
  if (Object.hasOwn(filter, 'tagsAny')) {
    const path = childPath(scope.path, 'tagsAny');
    const tags = filter.tagsAny;
    if (!Array.isArray(tags) || tags.length === 0 || tags.length > MAX_FILTER_TAGS) {
      scope.issues.add(path, `${scope.who}: ticketFilter.tagsAny must be a list of 1-${MAX_FILTER_TAGS} tags`);
    } else {
      tags.forEach((t, k) =>
        checkStringValue(scope, childPath(path, k), 'ticketFilter.tagsAny item', t, { min: 1, max: 100, notBlank: true }),
      );
    }
  }
  if (Object.hasOwn(filter, 'idleForSeconds')) {
    checkNumber(scope, filter, 'idleForSeconds', { atLeast: 1, atMost: MAX_SCHEDULE_SECONDS, integer: true });
  }
  if (Object.hasOwn(filter, 'calendarId')) {
    const path = childPath(scope.path, 'calendarId');
    if (!isCalendarId(filter.calendarId)) {
      scope.issues.add(path, `${scope.who}: ticketFilter.calendarId must be the id of a calendar (a UUID), got ${quote(filter.calendarId)}`);
    } else if (!Object.hasOwn(filter, 'idleForSeconds')) {
      scope.issues.add(path, `${scope.who}: ticketFilter.calendarId counts idleForSeconds in open time: give idleForSeconds too`);
    }
  }
}

function checkList(scope: Scope, filter: Record<string, unknown>, key: string, allowed: readonly string[]): void {
  const list = filter[key];
  const ok = Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string' && allowed.includes(v));
  if (!ok) {
    scope.issues.add(
      childPath(scope.path, key),
      `${scope.who}: ticketFilter.${key} must be a non-empty list of ${allowed.join(', ')}, got ${quote(list)}`,
    );
  }
}
