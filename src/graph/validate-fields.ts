// Parameter checks shared by the trigger, condition and action validators. Each reports into
// the scope's issue list with a message naming the node and the parameter, and returns the
// value when it is usable so the caller can go on with cross-field rules.

import { childPath } from './issues.ts';
import type { Scope } from './issues.ts';
import { contextPathProblem } from './paths.ts';
import { templatePaths } from './template.ts';
import { codePointLength, isBlank, quote } from './text.ts';

export const MAX_LABEL_LENGTH = 200;

/** Reports every key of `data` not in `allowed`. */
export function checkKeys(scope: Scope, data: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(data)) {
    if (!allowed.includes(key)) {
      scope.issues.add(
        childPath(scope.path, key),
        `${scope.who}: unknown parameter ${quote(key)} (allowed: ${allowed.join(', ')})`,
      );
    }
  }
}

/** The path of the required parameter `key`, or undefined (reported as missing) when `data` lacks it. */
export function requiredPath(scope: Scope, data: Record<string, unknown>, key: string): string | undefined {
  const path = childPath(scope.path, key);
  if (Object.hasOwn(data, key)) return path;
  scope.issues.add(path, `${scope.who}: ${key} is missing`);
  return undefined;
}

/** A node's type (`what`: "action type", "trigger type") when it is one of `types`, else reported. */
export function checkNodeType<T extends string>(scope: Scope, path: string, value: unknown, types: readonly T[], what: string): T | undefined {
  if (typeof value === 'string' && (types as readonly string[]).includes(value)) return value as T;
  scope.issues.add(path, `${scope.who}: unknown ${what} ${quote(value)} (${what}s: ${types.join(', ')})`);
  return undefined;
}

export function checkLabel(scope: Scope, data: Record<string, unknown>): void {
  if (!Object.hasOwn(data, 'label')) return;
  checkString(scope, data, 'label', { min: 0, max: MAX_LABEL_LENGTH });
}

export interface StringRule {
  min: number;
  max: number;
  /** Whitespace-only is refused. */
  notBlank?: boolean;
  /** {{placeholders}} are allowed and their paths checked. */
  template?: boolean;
}

/** A required string parameter (missing is an issue); characters are code points. */
export function checkString(
  scope: Scope,
  data: Record<string, unknown>,
  key: string,
  rule: StringRule,
): string | undefined {
  const path = requiredPath(scope, data, key);
  if (path === undefined) return undefined;
  return checkStringValue(scope, path, key, data[key], rule);
}

export function checkStringValue(
  scope: Scope,
  path: string,
  name: string,
  value: unknown,
  rule: StringRule,
): string | undefined {
  if (typeof value !== 'string') {
    scope.issues.add(path, `${scope.who}: ${name} must be a string, got ${quote(value)}`);
    return undefined;
  }
  const length = codePointLength(value, rule.max);
  if (length < rule.min || length > rule.max) {
    const shown = length > rule.max ? `more than ${rule.max}` : String(length);
    scope.issues.add(path, `${scope.who}: ${name} must be ${rule.min}-${rule.max} characters, got ${shown}`);
    return undefined;
  }
  if (rule.notBlank === true && isBlank(value)) {
    scope.issues.add(path, `${scope.who}: ${name} must not be blank`);
    return undefined;
  }
  if (rule.template === true) checkTemplate(scope, path, name, value);
  return value;
}

/** Each {{placeholder}} must name a context path with an allowed root. */
export function checkTemplate(scope: Scope, path: string, name: string, text: string): void {
  for (const p of templatePaths(text)) {
    const problem = p === '' ? 'is empty' : contextPathProblem(p);
    if (problem !== undefined) {
      scope.issues.add(path, `${scope.who}: placeholder {{${p}}} in ${name}: path ${problem}`);
    }
  }
}

/** A required parameter that must be one of `values`. */
export function checkEnum<T extends string>(
  scope: Scope,
  data: Record<string, unknown>,
  key: string,
  values: readonly T[],
): T | undefined {
  const path = requiredPath(scope, data, key);
  if (path === undefined) return undefined;
  const value = data[key];
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  scope.issues.add(path, `${scope.who}: ${key} must be one of ${values.join(', ')}, got ${quote(value)}`);
  return undefined;
}

export interface NumberRule {
  /** Exclusive lower bound. */
  greaterThan?: number;
  /** Inclusive lower bound. */
  atLeast?: number;
  atMost: number;
  integer?: boolean;
}

/** A required numeric parameter. */
export function checkNumber(
  scope: Scope,
  data: Record<string, unknown>,
  key: string,
  rule: NumberRule,
): number | undefined {
  const path = requiredPath(scope, data, key);
  if (path === undefined) return undefined;
  const value = data[key];
  const kind = rule.integer === true ? 'an integer' : 'a number';
  const bounds =
    rule.greaterThan !== undefined
      ? `greater than ${rule.greaterThan} and at most ${rule.atMost}`
      : `from ${rule.atLeast ?? 0} to ${rule.atMost}`;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule.integer !== true || Number.isInteger(value)) &&
    (rule.greaterThan === undefined || value > rule.greaterThan) &&
    (rule.atLeast === undefined || value >= rule.atLeast) &&
    value <= rule.atMost;
  if (ok) return value;
  scope.issues.add(path, `${scope.who}: ${key} must be ${kind} ${bounds}, got ${quote(value)}`);
  return undefined;
}

/** Depth of nested arrays/objects in a JSON value, stopping once past `cap`. */
export function jsonDepth(value: unknown, cap: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (cap <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(child, cap - 1));
    if (deepest >= cap) break;
  }
  return deepest + 1;
}
