// Validation of a condition node's data: a leaf { field, operator, value?, caseSensitive? }
// or a group { match, conditions } nesting at most MAX_GROUP_DEPTH deep with at most
// MAX_LEAVES leaves. Value rules per operator match what conditions.ts can evaluate
// meaningfully, so an author learns at save time that `in` needs a list rather than watching
// the condition be false forever.

import { isCalendarId } from './calendar-refs.ts';
import { parseIsoInstant } from './dates.ts';
import { childPath, IssueList } from './issues.ts';
import type { Scope } from './issues.ts';
import { changedFieldName, contextPathProblem } from './paths.ts';
import { patternProblem } from './regex.ts';
import { isRecord, quote } from './text.ts';
import { AGE_OPERATORS, BUSINESS_HOURS_OPERATORS, CHANGEABLE_TICKET_FIELDS, DATE_CONTEXT_FIELDS, NOW_FIELD, NOW_OPERATORS, OPERATORS } from './types.ts';
import type { GraphIssue, Operator } from './types.ts';
import { checkKeys, checkLabel, checkNumber, requiredPath } from './validate-fields.ts';

export const MAX_GROUP_DEPTH = 5;
export const MAX_LEAVES = 50;
export const MAX_IN_LIST = 500;

const LEAF_KEYS = ['field', 'operator', 'value', 'caseSensitive'];
const GROUP_KEYS = ['match', 'conditions'];

const NO_VALUE: readonly Operator[] = ['is_empty', 'is_not_empty', 'changed'];
const CHANGE_OPERATORS: readonly Operator[] = ['changed', 'changed_to', 'changed_from'];
const COMPARISONS: readonly Operator[] = ['greater_than', 'greater_or_equal', 'less_than', 'less_or_equal'];
const INSTANT_OPERATORS: readonly Operator[] = [...BUSINESS_HOURS_OPERATORS, ...AGE_OPERATORS];
/** Longest age older_than / newer_than take: ten years. */
export const MAX_AGE_SECONDS = 315_360_000;
/** What an age value of older_than / newer_than takes; editors build their forms from this list. */
export const AGE_PARAMETERS: readonly string[] = ['seconds', 'calendarId'];

interface Walk {
  scope: Scope;
  leaves: number;
}

export function checkConditionData(scope: Scope, data: Record<string, unknown>): void {
  checkLabel(scope, data);
  const walk: Walk = { scope, leaves: 0 };
  checkCondition(walk, scope.path, data, 0, true);
  if (walk.leaves > MAX_LEAVES) {
    scope.issues.add(scope.path, `${scope.who}: has more than ${MAX_LEAVES} conditions; split it into several nodes`);
  }
}

function checkCondition(walk: Walk, path: string, cond: unknown, depth: number, top: boolean): void {
  const { scope } = walk;
  if (!isRecord(cond)) {
    scope.issues.add(path, `${scope.who}: a condition must be an object, got ${quote(cond)}`);
    return;
  }
  const extra = top ? ['label'] : [];
  if (Object.hasOwn(cond, 'match') || Object.hasOwn(cond, 'conditions')) {
    checkGroup(walk, path, cond, depth + 1, extra);
  } else {
    walk.leaves += 1;
    if (walk.leaves > MAX_LEAVES) return; // reported once by the caller; stop the work here
    checkLeaf({ ...scope, path }, cond, extra);
  }
}

function checkGroup(
  walk: Walk,
  path: string,
  group: Record<string, unknown>,
  depth: number,
  extra: string[],
): void {
  const scope = { ...walk.scope, path };
  if (depth > MAX_GROUP_DEPTH) {
    scope.issues.add(path, `${scope.who}: condition groups nest more than ${MAX_GROUP_DEPTH} deep`);
    return;
  }
  checkKeys(scope, group, [...GROUP_KEYS, ...extra]);
  if (group.match !== 'all' && group.match !== 'any') {
    scope.issues.add(childPath(path, 'match'), `${scope.who}: match must be "all" or "any", got ${quote(group.match)}`);
  }
  const list = group.conditions;
  if (!Array.isArray(list) || list.length === 0) {
    scope.issues.add(childPath(path, 'conditions'), `${scope.who}: conditions must be a non-empty list`);
    return;
  }
  list.forEach((c, k) => {
    if (walk.leaves <= MAX_LEAVES) checkCondition(walk, childPath(childPath(path, 'conditions'), k), c, depth, false);
  });
}

function checkLeaf(scope: Scope, leaf: Record<string, unknown>, extra: string[]): void {
  checkKeys(scope, leaf, [...LEAF_KEYS, ...extra]);
  const { issues, who, path } = scope;
  const operator = leaf.operator;
  if (!Object.hasOwn(leaf, 'operator')) {
    issues.add(childPath(path, 'operator'), `${who}: operator is missing`);
  } else if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    issues.add(childPath(path, 'operator'), `${who}: unknown operator ${quote(operator)} (operators: ${OPERATORS.join(', ')})`);
  }
  const op = (OPERATORS as readonly unknown[]).includes(operator) ? (operator as Operator) : undefined;
  checkField(scope, leaf, op);
  if (Object.hasOwn(leaf, 'caseSensitive') && typeof leaf.caseSensitive !== 'boolean') {
    issues.add(childPath(path, 'caseSensitive'), `${who}: caseSensitive must be true or false`);
  }
  if (op !== undefined) checkValue(scope, leaf, op);
}

function checkField(scope: Scope, leaf: Record<string, unknown>, op: Operator | undefined): void {
  const path = requiredPath(scope, leaf, 'field');
  if (path === undefined) return;
  const field = leaf.field;
  if (typeof field !== 'string') {
    scope.issues.add(path, `${scope.who}: field must be a dotted path string, got ${quote(field)}`);
    return;
  }
  if (field === NOW_FIELD) {
    if (op !== undefined && !(NOW_OPERATORS as readonly Operator[]).includes(op)) {
      scope.issues.add(path, `${scope.who}: the field now (the moment the condition is evaluated) takes only ${NOW_OPERATORS.join(', ')}, not ${op}`);
    }
    return;
  }
  if (op !== undefined && INSTANT_OPERATORS.includes(op)) {
    const problem = contextPathProblem(field);
    if (problem !== undefined) scope.issues.add(path, `${scope.who}: field ${problem}`);
    else if (!(DATE_CONTEXT_FIELDS as readonly string[]).includes(field) && !field.startsWith('data.')) {
      const allowed = [...((BUSINESS_HOURS_OPERATORS as readonly Operator[]).includes(op) ? [NOW_FIELD] : []), ...DATE_CONTEXT_FIELDS, 'a data.* path'];
      scope.issues.add(path, `${scope.who}: ${op} needs a date field (${allowed.join(', ')}), got ${quote(field)}`);
    }
    return;
  }
  if (op !== undefined && CHANGE_OPERATORS.includes(op)) {
    if (changedFieldName(field) === undefined) {
      scope.issues.add(
        path,
        `${scope.who}: ${op} needs a ticket field name (${CHANGEABLE_TICKET_FIELDS.join(', ')}, optionally prefixed "ticket."), got ${quote(field)}`,
      );
    }
    return;
  }
  const problem = contextPathProblem(field);
  if (problem !== undefined) scope.issues.add(path, `${scope.who}: field ${problem}`);
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function checkValue(scope: Scope, leaf: Record<string, unknown>, op: Operator): void {
  const path = childPath(scope.path, 'value');
  const has = Object.hasOwn(leaf, 'value');
  const value = leaf.value;
  const fail = (need: string): void => {
    scope.issues.add(path, `${scope.who}: operator ${op} needs ${need}, got ${has ? quote(value) : 'no value'}`);
  };
  if (NO_VALUE.includes(op)) {
    if (has) scope.issues.add(path, `${scope.who}: operator ${op} takes no value`);
    return;
  }
  switch (op) {
    case 'equals':
    case 'not_equals':
    case 'changed_to':
    case 'changed_from':
      if (!has || !isScalar(value)) fail('a string, number, boolean or null value');
      return;
    case 'contains':
    case 'not_contains':
      if (!has || value === null || !isScalar(value) || value === '') fail('a non-empty string, a number or a boolean');
      return;
    case 'starts_with':
    case 'ends_with':
      if (typeof value !== 'string' || value === '') fail('a non-empty string');
      return;
    case 'in':
    case 'not_in':
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_LIST || !value.every(isScalar)) {
        fail(`a list of 1-${MAX_IN_LIST} strings, numbers, booleans or nulls`);
      }
      return;
    case 'in_business_hours':
    case 'outside_business_hours':
      if (!isCalendarId(value)) fail('the id of a calendar (a UUID)');
      return;
    case 'older_than':
    case 'newer_than':
      checkAge(scope, path, has, value, op);
      return;
    case 'matches': {
      if (typeof value !== 'string' || value === '') {
        fail('a regular expression string');
        return;
      }
      const problem = patternProblem(value, leaf.caseSensitive === true);
      if (problem !== undefined) scope.issues.add(path, `${scope.who}: pattern ${quote(value)} ${problem}`);
      return;
    }
    default:
      if (COMPARISONS.includes(op)) {
        const isDate = typeof value === 'string' && parseIsoInstant(value) !== undefined;
        if (leaf.field === NOW_FIELD) {
          if (!isDate) fail('an ISO 8601 date to compare now with (2025-01-31 or 2025-01-31T09:00:00Z)');
        } else if (!isDate && !(typeof value === 'number' && Number.isFinite(value))) {
          fail('a number or an ISO 8601 date (2025-01-31 or 2025-01-31T09:00:00Z)');
        }
      }
  }
}

/** `{ seconds }` (calendar time) or `{ seconds, calendarId }` (open time of that calendar). */
function checkAge(scope: Scope, path: string, has: boolean, value: unknown, op: Operator): void {
  if (!isRecord(value)) {
    scope.issues.add(path, `${scope.who}: operator ${op} needs an age { "seconds": n } or { "seconds": n, "calendarId": "…" }, got ${has ? quote(value) : 'no value'}`);
    return;
  }
  const ageScope = { ...scope, path };
  checkKeys(ageScope, value, AGE_PARAMETERS);
  checkNumber(ageScope, value, 'seconds', { greaterThan: 0, atMost: MAX_AGE_SECONDS });
  if (Object.hasOwn(value, 'calendarId') && !isCalendarId(value.calendarId)) {
    scope.issues.add(childPath(path, 'calendarId'), `${scope.who}: calendarId must be the id of a calendar (a UUID), got ${quote(value.calendarId)}`);
  }
}

/** Operators a ticket condition (an SLA policy's `match`) may not use: they read a change, the clock or a calendar. */
const NOT_IN_TICKET_CONDITIONS: readonly Operator[] = [...CHANGE_OPERATORS, ...INSTANT_OPERATORS];

/**
 * A condition over the ticket alone, as an SLA policy's `match` takes it: the workflow
 * language's condition (one leaf or an all/any group) whose fields are `ticket.*` paths and
 * whose operators read nothing but the ticket (no `changed…`: there is no change to read; no
 * business-hours or age operators: a policy is chosen when the ticket changes, not as time
 * passes). Issues have paths rooted at `path` (`match.conditions[1].field`).
 */
export function ticketConditionIssues(cond: unknown, path: string): GraphIssue[] {
  const issues = new IssueList();
  const scope: Scope = { issues, path, who: path };
  const walk: Walk = { scope, leaves: 0 };
  checkCondition(walk, path, cond, 0, false);
  if (walk.leaves > MAX_LEAVES) issues.add(path, `${path}: has more than ${MAX_LEAVES} conditions`);
  const visit = (c: unknown, at: string, depth: number): void => {
    if (!isRecord(c) || depth > MAX_GROUP_DEPTH) return;
    if (Array.isArray(c.conditions)) {
      c.conditions.forEach((child, k) => visit(child, childPath(childPath(at, 'conditions'), k), depth + 1));
      return;
    }
    if (typeof c.operator === 'string' && NOT_IN_TICKET_CONDITIONS.includes(c.operator as Operator)) {
      issues.add(childPath(at, 'operator'), `${path}: the operator ${c.operator} reads a change, the time or a calendar; a policy's match reads only the ticket's fields`);
      return;
    }
    if (typeof c.field === 'string' && contextPathProblem(c.field) === undefined && !c.field.startsWith('ticket.')) {
      issues.add(childPath(at, 'field'), `${path}: field must be a ticket field (ticket.status, ticket.tags, …), got ${quote(c.field)}`);
    }
  };
  visit(cond, path, 0);
  return issues.list();
}
