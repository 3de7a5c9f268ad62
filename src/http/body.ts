import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { AppError, invalidJson, payloadTooLarge, unsupportedMediaType } from '../errors.ts';
import { assertJsonMediaType, declaresJson, emptyJsonBody, jsonObject } from './json.ts';

export const MiB = 1024 * 1024;

/**
 * The checks every body reader makes before reading: a declared Content-Length over the limit
 * is refused unread (413), and a body that is there must be declared `application/json`
 * (415). Returns whether the request has a body at all.
 */
export function precheckBody(ctx: Context, limitBytes: number): boolean {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw payloadTooLarge(limitBytes);
  const hasBody = ctx.request.length ? ctx.request.length > 0 : ctx.get('transfer-encoding') !== '';
  if (hasBody) assertJsonMediaType(ctx);
  return hasBody;
}

/**
 * The AppError for a failure of reading or parsing a body (raw-body and co-body, behind
 * koa-bodyparser, tell them apart by `type`), or null when the error is something else.
 */
export function bodyReadError(err: unknown, limitBytes: number | undefined): AppError | null {
  const e = err as { status?: number; type?: string; limit?: number; expose?: boolean } | undefined;
  if (e?.type === 'entity.too.large' || e?.status === 413) return payloadTooLarge(limitBytes ?? e.limit ?? 0);
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported' || e?.status === 415) return unsupportedMediaType();
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid') return invalidJson('The request body could not be read completely.');
  if (e?.type === 'entity.parse.failed' || (e?.status === 400 && e.expose)) return invalidJson('The request body is not valid JSON.');
  return null;
}

/**
 * Reads a JSON object body of at most `limitBytes`, judged on the bytes received (a declared
 * Content-Length over the limit is refused before reading; a chunked body is cut off once it
 * passes the limit). The parsed body is on `ctx.request.body`, the raw text on
 * `ctx.request.rawBody`.
 *
 * A request without a body reads as `{}` (its required fields are then missing), except that an
 * empty body declared as `application/json` is not JSON: a 400 `invalid_json`, unless the body
 * is `optional` (POST …/trigger), where it reads as `{}` too.
 */
export function jsonBody(limitBytes: number, opts: { optional?: boolean } = {}) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limitBytes}b`,
    // Any JSON value is parsed, so that a non-object is told apart from broken JSON (below).
    strict: false,
    // `__proto__` keys are kept as plain fields here and refused by name in jsonObject().
    ...({ onProtoPoisoning: 'ignore' } as object),
    onerror: (err: Error) => {
      throw bodyReadError(err, limitBytes) ?? invalidJson('The request body is not valid JSON.');
    },
  });
  const empty = (ctx: Context, next: Next) => {
    if (!opts.optional && declaresJson(ctx)) throw emptyJsonBody();
    ctx.request.body = {};
    ctx.request.rawBody = '';
    return next();
  };

  async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    ctx.state.bodyLimit = limitBytes;
    if (!precheckBody(ctx, limitBytes)) return empty(ctx, next);
    await parse(ctx, async () => {});
    if (String(ctx.request.rawBody ?? '') === '') return empty(ctx, next);
    ctx.request.body = jsonObject(ctx.request.body);
    await next();
  }
  // The OpenAPI document reads the limit and optionality from the mounted route (jsonBodyOf).
  return Object.assign(readJsonBody, { [JSON_BODY]: { limitBytes, optional: opts.optional ?? false } });
}

const JSON_BODY = Symbol('jsonBody');
export type JsonBodyRule = { limitBytes: number; optional: boolean };

/** The rule of a jsonBody() middleware, or undefined for any other middleware. */
export function jsonBodyOf(mw: unknown): JsonBodyRule | undefined {
  return (mw as { [JSON_BODY]?: JsonBodyRule })[JSON_BODY];
}
