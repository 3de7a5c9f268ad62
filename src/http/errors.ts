import type { Context, Next } from 'koa';
import { AppError, invalidJson, notFound, payloadTooLarge, unavailable, unsupportedMediaType } from '../errors.ts';
import type { Logger } from '../logger.ts';

/**
 * Every failure leaves as `{ error: { code, message, details? } }`. Known errors keep their
 * status; a database that cannot be reached is a 503; anything else is a bug, logged and
 * answered 500 without internals.
 */
export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('Route');
    } catch (err) {
      const appError = toAppError(err, ctx);
      if (!appError) {
        logger.error('unhandled error', { method: ctx.method, path: ctx.path, error: describe(err) });
      } else if (appError.status === 503) {
        logger.warn('dependency unavailable', { method: ctx.method, path: ctx.path, error: describe(err) });
      }
      const error = appError ?? new AppError(500, 'internal_error', 'An unexpected error occurred.');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = {
        error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
      };
    }
  };
}

function toAppError(err: unknown, ctx: Context): AppError | null {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string; code?: string; message?: string; limit?: number; expose?: boolean };
  // Errors of the body reader (raw-body / co-body behind koa-bodyparser).
  if (e?.type === 'entity.too.large' || e?.status === 413) return payloadTooLarge(e.limit ?? (ctx.state.bodyLimit as number));
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported' || e?.status === 415) return unsupportedMediaType();
  if (e?.type === 'entity.parse.failed' || e?.type === 'request.size.invalid' || e?.type === 'request.aborted') {
    return invalidJson(e.type === 'entity.parse.failed' ? 'The request body is not valid JSON.' : 'The request body could not be read.');
  }
  if (e?.status === 400 && e.expose) return invalidJson('The request body is not valid JSON.');
  if (isDatabaseUnavailable(err)) return unavailable('The database is unavailable; retry later.');
  return null;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '57014']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: string; name?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.name === 'ConnectionException') return true;
    // 08P01 (protocol violation) is caused by the request, not an outage: it must not hide as a 503.
    if (e.code && (UNAVAILABLE_CODES.has(e.code) || (e.code.startsWith('08') && e.code !== '08P01'))) return true;
    if (/timeout exceeded when trying to connect|Query read timeout|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/i.test(e.message ?? '')) return true;
  }
  return false;
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
