import type { Context } from 'koa';
import { invalidJson, unsupportedMediaType, validationFailed, type ErrorDetail } from '../errors.ts';

/** Deeper JSON than this is refused: no field of the interface nests anywhere near it. */
export const MAX_JSON_DEPTH = 64;

/**
 * Text PostgreSQL cannot store: U+0000 (not in text at all) and unpaired UTF-16 surrogates (not in
 * jsonb, where events and workflow graphs live).
 */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** What a string of text PostgreSQL cannot store is told, wherever it was sent. */
export const UNSTORABLE_TEXT = 'Text must be valid Unicode without NUL (U+0000) characters.';

/**
 * The first query parameter with a value PostgreSQL cannot store (`?q=a%00b`), named as the
 * body's fields are: checked for every query before its schema, as bodyProblem is for bodies.
 */
export function queryProblem(query: Record<string, unknown>): ErrorDetail | null {
  for (const [name, given] of Object.entries(query)) {
    const values = Array.isArray(given) ? given : [given];
    if (UNSTORABLE.test(name) || values.some((v) => typeof v === 'string' && UNSTORABLE.test(v))) return { path: name, message: UNSTORABLE_TEXT };
  }
  return null;
}

/**
 * docs/contract.md §1: a body must be sent as `application/json`. Other media types, JSON-based ones
 * such as `application/merge-patch+json` included, and any charset but UTF-8 are a 415.
 */
export function assertJsonMediaType(ctx: Context): void {
  const charset = ctx.request.charset.toLowerCase();
  if (!declaresJson(ctx) || (charset !== '' && charset !== 'utf-8' && charset !== 'utf8')) throw unsupportedMediaType();
}

/** The request says its body is `application/json` (media types are case-insensitive). */
export function declaresJson(ctx: Context): boolean {
  return ctx.request.type.trim().toLowerCase() === 'application/json';
}

/** An empty body that says it is JSON is not JSON. */
export const emptyJsonBody = () => invalidJson('The request body is empty; send a JSON object.');

/** The parsed body as a JSON object, or a 400 saying what is wrong with it. */
export function jsonObject(parsed: unknown): Record<string, unknown> {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidJson(`The request body must be a JSON object, not ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`}.`);
  }
  const problem = bodyProblem(parsed);
  if (problem) throw validationFailed([problem]);
  return parsed as Record<string, unknown>;
}

/**
 * The first place in a parsed body that cannot be taken as it is: nesting deeper than
 * MAX_JSON_DEPTH, a `__proto__` field name, or text Postgres cannot store. Checked up front for
 * every body, so that no later step (validation, templates, jsonb) meets it and fails with a 500.
 * Walks without recursion: a deep body cannot exhaust the stack.
 */
export function bodyProblem(body: object): ErrorDetail | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return { path: path || '(body)', message: UNSTORABLE_TEXT };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return { path: path.split('.')[0], message: `JSON may nest at most ${MAX_JSON_DEPTH} levels deep.` };
    const keys = Object.keys(value);
    for (const key of keys) {
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') return { path: at, message: 'The field name "__proto__" is not allowed.' };
      if (UNSTORABLE.test(key)) return { path: at, message: 'Field names must be valid Unicode without NUL (U+0000) characters.' };
    }
    // Pushed last to first, so fields are looked at in the order they were sent.
    for (const key of keys.reverse()) {
      stack.push({ value: (value as Record<string, unknown>)[key], path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}
