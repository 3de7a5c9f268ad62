import { z } from 'zod';
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { codePointLength } from '../graph/index.ts';

/**
 * How a detail's path names a list item: `hours.0.to` (dotted), or `targets[2].seconds` (the
 * form docs/contract.md describes, and src/graph's paths take), for the routes that ask for it.
 */
export type ListPaths = 'dotted' | 'indexed';

/**
 * Parses `input` with `schema` or throws a 400 `validation_failed` naming each offending field
 * (`what` the input's members are called: fields of a body, parameters of a query).
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where = '', paths: ListPaths = 'dotted', what: 'field' | 'query parameter' = 'field'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(toDetails(result.error, where, paths, what));
}

/** Segments as one path: joined with dots, list indexes as `[n]` when `paths` is indexed. */
function joinPath(segments: Array<string | number>, paths: ListPaths): string {
  let path = '';
  for (const segment of segments) {
    if (segment === '') continue;
    if (paths === 'indexed' && typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? String(segment) : `.${segment}`;
  }
  return path;
}

export function toDetails(error: z.ZodError, where = '', paths: ListPaths = 'dotted', what: 'field' | 'query parameter' = 'field'): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const base = joinPath([where, ...issue.path.map((s) => (typeof s === 'number' ? s : String(s)))], paths);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({ path: joinPath([base, key], paths), message: `Unknown ${what} "${key}".` });
      }
    } else {
      details.push({ path: base || '(body)', message: issue.message });
    }
  }
  // Two checks of one rule (a number too large is both unsafe and over the maximum) are told once.
  return details.filter((d, i) => details.findIndex((e) => e.path === d.path && e.message === d.message) === i);
}

/** A string of `min`..`max` code points; `nonBlank` refuses whitespace-only text. */
export function text(opts: { min?: number; max: number; nonBlank?: boolean; label: string; typeMessage?: string }) {
  const { min = 0, max, nonBlank = false, label } = opts;
  return z
    .string({
      error: (i) =>
        i.input === undefined ? `${label} is required.` : i.input === null ? `${label} must not be null.` : (opts.typeMessage ?? `${label} must be a string.`),
    })
    .check((ctx) => {
      const s = ctx.value;
      const n = codePointLength(s);
      if (n < min) ctx.issues.push({ code: 'custom', input: s, message: min === 1 ? `${label} must not be empty.` : `${label} must be at least ${min} characters.` });
      else if (n > max) ctx.issues.push({ code: 'custom', input: s, message: `${label} must be at most ${max} characters (got ${n}).` });
      else if (nonBlank && s.trim() === '') ctx.issues.push({ code: 'custom', input: s, message: `${label} must not be blank.` });
    })
    // The same rule in the OpenAPI document (JSON Schema lengths count code points too).
    .meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: max, ...(nonBlank ? { pattern: '\\S' } : {}) });
}

/** An email address: trimmed, `local@domain` with one `@`, no whitespace, at most 320 code points. */
export function email(label: string) {
  return z
    .string({ error: (i) => (i.input === undefined ? `${label} is required.` : `${label} must be a string.`) })
    .transform((s) => s.trim())
    .check((ctx) => {
      const s = ctx.value;
      if (codePointLength(s, 320) > 320) ctx.issues.push({ code: 'custom', input: s, message: `${label} must be at most 320 characters.` });
      else if (!/^[^@\s]+@[^@\s]+$/u.test(s)) ctx.issues.push({ code: 'custom', input: s, message: `${label} must be an email address like name@example.com.` });
    })
    .meta({ description: '`local@domain` (one `@`, no whitespace), at most 320 characters once trimmed.' });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, label: string) {
  return z.enum(values, { error: () => `${label} must be one of: ${values.join(', ')}.` });
}

/** Like text(), or null; a value of another type is told it must be "a string or null". */
export function nullableText(opts: { max: number; label: string }) {
  return text({ ...opts, typeMessage: `${opts.label} must be a string or null.` }).nullable();
}

/** A query parameter given at most once (a repeated one arrives as an array). */
export const queryParam = (label: string) => z.string({ error: () => `${label} must be given once.` });

/**
 * A query parameter that may be given several times (`?priority=high&priority=urgent`), up to
 * `max`: the list of its values, each checked by `item` (the first broken one is named).
 * `values` lists what it may be, for the OpenAPI document.
 */
export function queryList<T extends z.ZodType<unknown, string>>(label: string, item: T, opts: { max?: number; values?: readonly string[] } = {}) {
  const max = opts.max ?? 50;
  return z
    .union([z.string(), z.array(z.string())])
    .transform((given, ctx): Array<z.output<T>> => {
      const values = typeof given === 'string' ? [given] : given;
      if (values.length > max) {
        ctx.issues.push({ code: 'custom', input: given, message: `${label} may be given at most ${max} times.` });
        return z.NEVER;
      }
      const out: Array<z.output<T>> = [];
      for (const value of values) {
        const parsed = item.safeParse(value);
        if (!parsed.success) {
          ctx.issues.push({ code: 'custom', input: value, message: parsed.error.issues[0]?.message ?? `${label} is not valid.` });
          return z.NEVER;
        }
        out.push(parsed.data);
      }
      return [...new Set(out)];
    })
    .meta({
      // In the OpenAPI document: a list, sent as the parameter repeated (style form, explode).
      override: ({ jsonSchema }) => {
        for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
        Object.assign(jsonSchema, { type: 'array', maxItems: max, items: opts.values ? { type: 'string', enum: [...opts.values] } : { type: 'string' } });
      },
    });
}

/**
 * An integer query parameter: plain decimal digits (leading zeros allowed), from `min` to
 * `max`. Signs, spaces, fractions and exponents are refused, as is a repeated parameter.
 */
export function queryInteger(label: string, opts: { min: number; max: number }) {
  const rule = `${label} must be an integer from ${opts.min} to ${opts.max}.`;
  return queryParam(label)
    .regex(/^[0-9]+$/, rule)
    .transform(Number)
    .refine((n) => n >= opts.min && n <= opts.max, rule)
    .meta({
      description: 'Plain decimal digits; leading zeros are allowed.',
      // In the OpenAPI document: the integer the digits stand for, not the string they arrive as.
      override: ({ jsonSchema }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: 'integer', minimum: opts.min, maximum: opts.max });
      },
    });
}

/** A JSON object (not null, not an array), kept as it is. */
export const jsonRecord = (message: string) =>
  z.custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), { error: () => message });
