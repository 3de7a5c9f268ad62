import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { invalidJson, payloadTooLarge, unsupportedMediaType, validationFailed } from '../errors.ts';
import { unstorableText } from './validate.ts';

export const MiB = 1024 * 1024;

/**
 * Reads a JSON object body of at most `limitBytes`, judged on the bytes received (a declared
 * Content-Length over the limit is refused before reading; a chunked body is cut off once it
 * passes the limit). The parsed body is on `ctx.request.body`, the raw text on
 * `ctx.request.rawBody`. A request without a body reads as `{}`.
 */
export function jsonBody(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json'],
    // Every JSON media type the route admits (below) is parsed and measured, not only the common ones.
    extendTypes: { json: ['+json'] },
    jsonLimit: `${limitBytes}b`,
    strict: true,
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

  return async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes) throw payloadTooLarge(limitBytes);
    const hasBody = ctx.request.length ? ctx.request.length > 0 : ctx.get('transfer-encoding') !== '';
    if (!hasBody) {
      ctx.request.body = {};
      ctx.request.rawBody = '';
      return next();
    }
    if (!ctx.request.is('application/json', '+json')) throw unsupportedMediaType();
    await parse(ctx, async () => {});
    const body = ctx.request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw invalidJson('The request body must be a JSON object.');
    }
    const unstorable = unstorableText(body);
    if (unstorable) throw validationFailed([unstorable]);
    await next();
  };
}
