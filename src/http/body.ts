import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { invalidJson, payloadTooLarge, unsupportedMediaType } from '../errors.ts';
import { assertJsonMediaType, declaresJson, emptyJsonBody, jsonObject } from './json.ts';

export const MiB = 1024 * 1024;

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
    onerror: (err: Error & { status?: number; type?: string }) => {
      if (err.type === 'entity.too.large' || err.status === 413) throw payloadTooLarge(limitBytes);
      if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported' || err.status === 415) {
        throw unsupportedMediaType();
      }
      if (err.type === 'request.aborted' || err.type === 'request.size.invalid') {
        throw invalidJson('The request body could not be read completely.');
      }
      throw invalidJson('The request body is not valid JSON.');
    },
  });
  const empty = (ctx: Context, next: Next) => {
    if (!opts.optional && declaresJson(ctx)) throw emptyJsonBody();
    ctx.request.body = {};
    ctx.request.rawBody = '';
    return next();
  };

  return async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes) throw payloadTooLarge(limitBytes);
    const hasBody = ctx.request.length ? ctx.request.length > 0 : ctx.get('transfer-encoding') !== '';
    if (!hasBody) return empty(ctx, next);
    assertJsonMediaType(ctx);
    await parse(ctx, async () => {});
    if (String(ctx.request.rawBody ?? '') === '') return empty(ctx, next);
    ctx.request.body = jsonObject(ctx.request.body);
    await next();
  };
}
