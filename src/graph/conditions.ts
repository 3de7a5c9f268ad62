// Evaluation of condition nodes against the run context.
//
// Semantics (docs/automations.md, "Operators"). Every operator is total: it answers false when
// it cannot decide, so a surprising payload takes the `false` branch instead of failing the run.
// The one exception is a `matches` pattern that cannot run (stored before patterns were RE2,
// e.g. a lookahead): evaluateCondition throws a PatternError naming it, whatever the context,
// so the execution fails with a message saying what to fix instead of quietly branching false.
//
// - `actual` is getPath(context, field); a missing path behaves as null.
// - Strings compare case-insensitively (String#toLowerCase, locale-independent) unless the
//   leaf says `caseSensitive: true`. Strings are never trimmed.
// - equals: same JSON type and same value (arrays element-wise, objects key-wise, strings per
//   the case rule). No coercion: 5 does not equal "5", true does not equal "true". null equals
//   null and a missing field. Mismatched types are simply not equal.
// - contains: a string subject contains a string value as a substring; an array subject
//   contains the value when some element equals it (equals semantics). Anything else: false.
// - starts_with / ends_with: string subject and string value only.
// - in: `value` is a list; true when some element equals the subject. A non-list value: false.
// - greater_than / greater_or_equal / less_than / less_or_equal: both sides finite numbers, or
//   both ISO 8601 date/date-time strings compared as instants (no offset = UTC). Any other
//   pairing (number vs numeric string, date vs number, missing) is false for all four.
// - is_empty: null, missing, '' or whitespace-only string, [] or {}. Numbers and booleans
//   (including 0 and false) are not empty.
// - matches: the value is an RE2 pattern (regex.ts), case-insensitive unless caseSensitive,
//   searched for anywhere in a string subject; a non-string subject is false.
// - changed: `changes` has an own entry for the field (`status` or `ticket.status`).
//   changed_to / changed_from: the field changed and its `to` / `from` equals the value; a field
//   that did not change is false whatever the value.
// - Every negative operator (not_equals, not_contains, not_in, is_not_empty) is exactly the
//   negation of its positive, so a missing field satisfies not_contains and not_in.
// - in_business_hours / outside_business_hours: the field's instant (`now`, or an ISO 8601 date
//   in the context) is open / closed in the calendar the value names. A field that holds no date
//   is neither. older_than / newer_than: the field's instant lies at least / less than
//   `value.seconds` before `now`, counted in calendar time or, with `value.calendarId`, in that
//   calendar's open time; a field that holds no date is neither. These read the calendars and
//   the evaluation time the caller passes in (options); a calendar that is missing is a
//   CalendarError, which fails the condition like a broken pattern.
// - Groups: `all` is every (empty: true), `any` is some (empty: false).

import { businessSchedule, CalendarError, isOpenAt, subtractOpenTime, type BusinessSchedule } from './business-time.ts';
import { parseIsoInstant } from './dates.ts';
import { changedFieldName, getPath } from './paths.ts';
import { compilePattern } from './regex.ts';
import { isRecord, quote } from './text.ts';
import { NOW_FIELD } from './types.ts';
import type { CalendarsById, ConditionData, ConditionLeaf, RunContext } from './types.ts';

/** A `matches` pattern of the condition cannot run; the message says which and why. */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

/** Compiled `matches` patterns of one condition, by leaf. */
type Patterns = Map<object, (text: string) => boolean>;

export type EvaluationOptions = {
  /**
   * Run `matches` on JavaScript's RegExp (flag `u`, plus `i` unless caseSensitive; a pattern
   * that does not compile never matches), as before patterns ran on RE2. Only for runs that
   * began then and replay now (runGraph): their history holds the branches RegExp chose.
   */
  regExpPatterns?: boolean;
  /**
   * The moment the condition is evaluated, in milliseconds since the epoch: what the field
   * `now` reads and what older_than / newer_than measure ages up to. A run passes its workflow
   * time, a dry run its `at`. Needed only by conditions that read it.
   */
  now?: number;
  /** The calendars the condition names, by lower-case id (conditionCalendarIds lists them). */
  calendars?: CalendarsById;
};

/** What evaluating one condition needs besides the context. */
interface Evaluation {
  patterns: Patterns;
  now: number | undefined;
  calendars: CalendarsById;
  schedules: Map<string, BusinessSchedule>;
}

export function evaluateCondition(cond: ConditionData, context: RunContext | unknown, options: EvaluationOptions = {}): boolean {
  const patterns: Patterns = new Map();
  compilePatterns(cond, patterns, 0, options.regExpPatterns === true);
  return evaluateAt(cond, context, { patterns, now: options.now, calendars: options.calendars ?? {}, schedules: new Map() }, 0);
}

// Validation caps nesting at 5; the evaluator caps it too so an unvalidated input can never
// overflow the stack.
const MAX_EVAL_DEPTH = 32;

/** Compiles every pattern up front, so a broken one fails the condition whichever leaves run. */
function compilePatterns(cond: unknown, into: Patterns, depth: number, regExp: boolean): void {
  if (!isRecord(cond) || depth > MAX_EVAL_DEPTH) return;
  if (Array.isArray(cond.conditions)) {
    for (const c of cond.conditions as unknown[]) compilePatterns(c, into, depth + 1, regExp);
    return;
  }
  if (cond.operator !== 'matches' || typeof cond.value !== 'string') return;
  if (regExp) {
    into.set(cond, legacyRegExp(cond.value, cond.caseSensitive === true));
    return;
  }
  const compiled = compilePattern(cond.value, cond.caseSensitive === true);
  if (!compiled.ok) {
    throw new PatternError(
      `The condition on ${quote(cond.field)} cannot be evaluated: its pattern ${quote(cond.value)} ${compiled.problem}. Edit the workflow to use a supported pattern.`,
    );
  }
  into.set(cond, compiled.test);
}

function evaluateAt(cond: unknown, context: unknown, ev: Evaluation, depth: number): boolean {
  if (!isRecord(cond) || depth > MAX_EVAL_DEPTH) return false;
  if (Array.isArray(cond.conditions)) {
    const parts = cond.conditions as unknown[];
    if (cond.match === 'all') return parts.every((c) => evaluateAt(c, context, ev, depth + 1));
    if (cond.match === 'any') return parts.some((c) => evaluateAt(c, context, ev, depth + 1));
    return false;
  }
  if (typeof cond.field !== 'string' || typeof cond.operator !== 'string') return false;
  return evaluateLeaf(cond as unknown as ConditionLeaf, context, ev);
}

function evaluateLeaf(leaf: ConditionLeaf, context: unknown, ev: Evaluation): boolean {
  const cs = leaf.caseSensitive === true;
  const expected = leaf.value;
  switch (leaf.operator) {
    case 'changed':
    case 'changed_to':
    case 'changed_from':
      return evaluateChange(leaf, context, cs);
    case 'in_business_hours':
    case 'outside_business_hours': {
      const at = instantOf(leaf, context, ev);
      if (at === undefined) return false;
      return isOpenAt(scheduleOf(leaf, expected, ev), at) === (leaf.operator === 'in_business_hours');
    }
    case 'older_than':
    case 'newer_than': {
      const at = instantOf(leaf, context, ev);
      const seconds = isRecord(expected) ? expected.seconds : undefined;
      if (at === undefined || typeof seconds !== 'number' || !Number.isFinite(seconds)) return false;
      const now = nowOf(leaf, ev);
      const amount = Math.round(seconds * 1000);
      // The latest instant that is old enough: with a calendar, `amount` of open time before now.
      const cutoff = isRecord(expected) && expected.calendarId !== undefined ? subtractOpenTime(scheduleOf(leaf, expected.calendarId, ev), now, amount) : now - amount;
      return (at <= cutoff) === (leaf.operator === 'older_than');
    }
    default:
      break;
  }
  if (leaf.field === NOW_FIELD) {
    // `now` is an instant: only the comparisons apply, against a date.
    const b = typeof expected === 'string' ? parseIsoInstant(expected) : undefined;
    if (b === undefined) return false;
    const sign = Math.sign(nowOf(leaf, ev) - b);
    switch (leaf.operator) {
      case 'greater_than':
        return sign > 0;
      case 'greater_or_equal':
        return sign >= 0;
      case 'less_than':
        return sign < 0;
      case 'less_or_equal':
        return sign <= 0;
      default:
        return false;
    }
  }
  const patterns = ev.patterns;
  const actual = getPath(context, leaf.field) ?? null;
  switch (leaf.operator) {
    case 'equals':
      return jsonEquals(actual, expected, cs);
    case 'not_equals':
      return !jsonEquals(actual, expected, cs);
    case 'contains':
      return contains(actual, expected, cs);
    case 'not_contains':
      return !contains(actual, expected, cs);
    case 'starts_with':
      return typeof actual === 'string' && typeof expected === 'string' && fold(actual, cs).startsWith(fold(expected, cs));
    case 'ends_with':
      return typeof actual === 'string' && typeof expected === 'string' && fold(actual, cs).endsWith(fold(expected, cs));
    case 'in':
      return isIn(actual, expected, cs);
    case 'not_in':
      return !isIn(actual, expected, cs);
    case 'greater_than':
      return compareWith(actual, expected, (d) => d > 0);
    case 'greater_or_equal':
      return compareWith(actual, expected, (d) => d >= 0);
    case 'less_than':
      return compareWith(actual, expected, (d) => d < 0);
    case 'less_or_equal':
      return compareWith(actual, expected, (d) => d <= 0);
    case 'is_empty':
      return isEmpty(actual);
    case 'is_not_empty':
      return !isEmpty(actual);
    case 'matches': {
      const test = patterns.get(leaf);
      return test !== undefined && typeof actual === 'string' && test(actual);
    }
    default:
      return false; // unknown operator: validation rejects it; at run time it never holds
  }
}

/** The instant the leaf's field holds: `now`, or an ISO 8601 date in the context; undefined for anything else. */
function instantOf(leaf: ConditionLeaf, context: unknown, ev: Evaluation): number | undefined {
  if (leaf.field === NOW_FIELD) return nowOf(leaf, ev);
  const actual = getPath(context, leaf.field);
  return typeof actual === 'string' ? parseIsoInstant(actual) : undefined;
}

function nowOf(leaf: ConditionLeaf, ev: Evaluation): number {
  if (ev.now === undefined) throw new Error(`The condition on ${quote(leaf.field)} (${leaf.operator}) needs the time of evaluation, and none was given.`);
  return ev.now;
}

/** The prepared calendar a leaf names; a CalendarError when the run has no such calendar. */
function scheduleOf(leaf: ConditionLeaf, calendarId: unknown, ev: Evaluation): BusinessSchedule {
  const id = typeof calendarId === 'string' ? calendarId.toLowerCase() : '';
  let schedule = ev.schedules.get(id);
  if (schedule === undefined) {
    const calendar = Object.hasOwn(ev.calendars, id) ? ev.calendars[id] : undefined;
    if (calendar === undefined) {
      throw new CalendarError(`The condition on ${quote(leaf.field)} cannot be evaluated: calendar ${quote(calendarId)} does not exist in this workspace. Edit the workflow to name one of its calendars.`);
    }
    try {
      schedule = businessSchedule(calendar);
    } catch (err) {
      throw new CalendarError(`The condition on ${quote(leaf.field)} cannot be evaluated: ${err instanceof Error ? err.message : String(err)}.`);
    }
    ev.schedules.set(id, schedule);
  }
  return schedule;
}

function evaluateChange(leaf: ConditionLeaf, context: unknown, cs: boolean): boolean {
  const name = changedFieldName(leaf.field);
  if (name === undefined) return false;
  const changes = getPath(context, 'changes');
  if (!isRecord(changes) || !Object.hasOwn(changes, name)) return false;
  if (leaf.operator === 'changed') return true;
  const change = changes[name];
  const side = leaf.operator === 'changed_to' ? 'to' : 'from';
  const value = isRecord(change) && Object.hasOwn(change, side) ? change[side] : null;
  return jsonEquals(value ?? null, leaf.value, cs);
}

function fold(s: string, caseSensitive: boolean): string {
  return caseSensitive ? s : s.toLowerCase();
}

/** Structural JSON equality with the case rule for strings; undefined counts as null. */
export function jsonEquals(a: unknown, b: unknown, caseSensitive: boolean): boolean {
  const x = a ?? null;
  const y = b ?? null;
  if (typeof x === 'string' && typeof y === 'string') return fold(x, caseSensitive) === fold(y, caseSensitive);
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return x === y;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    return x.every((el, i) => jsonEquals(el, y[i], caseSensitive));
  }
  const xr = x as Record<string, unknown>;
  const yr = y as Record<string, unknown>;
  const keys = Object.keys(xr);
  if (keys.length !== Object.keys(yr).length) return false;
  return keys.every((k) => Object.hasOwn(yr, k) && jsonEquals(xr[k], yr[k], caseSensitive));
}

function contains(actual: unknown, expected: unknown, cs: boolean): boolean {
  if (typeof actual === 'string') {
    return typeof expected === 'string' && fold(actual, cs).includes(fold(expected, cs));
  }
  if (Array.isArray(actual)) return actual.some((el) => jsonEquals(el, expected, cs));
  return false;
}

function isIn(actual: unknown, list: unknown, cs: boolean): boolean {
  return Array.isArray(list) && list.some((el) => jsonEquals(actual, el, cs));
}

/** Sign of actual − expected for two numbers or two ISO instants; undefined otherwise. */
export function compareValues(actual: unknown, expected: unknown): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') {
    if (!Number.isFinite(actual) || !Number.isFinite(expected)) return undefined;
    return Math.sign(actual - expected);
  }
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = parseIsoInstant(actual);
    const b = parseIsoInstant(expected);
    if (a === undefined || b === undefined) return undefined;
    return Math.sign(a - b);
  }
  return undefined;
}

function compareWith(actual: unknown, expected: unknown, test: (sign: number) => boolean): boolean {
  const sign = compareValues(actual, expected);
  return sign !== undefined && test(sign);
}

export function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) return Object.keys(v).length === 0;
  return false;
}

function legacyRegExp(pattern: string, caseSensitive: boolean): (text: string) => boolean {
  try {
    const re = new RegExp(pattern, caseSensitive ? 'u' : 'iu');
    return (text) => re.test(text);
  } catch {
    return () => false;
  }
}
