import type { Context, Next } from 'koa';
import { isOutageOrUnanswered } from '../common/outage.ts';
import { AppError, notFound, unavailable } from '../errors.ts';
import { errorFields, type Logger } from '../logger.ts';
import { bodyReadError } from './body.ts';

/**
 * Every failure leaves as `{ error: { code, message, details? } }`. Known errors keep their
 * status; a database that cannot be reached is a 503 (the outage rule of src/common/outage.ts,
 * with `databaseAnswers` to settle the errors that say nothing of their cause); anything else is
 * a bug, logged and answered 500 without internals.
 */
export function errorHandler(logger: Logger, opts: { databaseAnswers?: () => Promise<boolean> } = {}) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('Route');
    } catch (err) {
      let appError = err instanceof AppError ? err : bodyReadError(err, ctx.state.bodyLimit);
      if (!appError && (await isOutageOrUnanswered(err, opts.databaseAnswers))) appError = databaseUnavailable();
      if (!appError) {
        logger.error('unhandled error', { method: ctx.method, path: ctx.path, requestId: ctx.state.requestId, ...describe(err) });
      } else if (appError.status === 503) {
        logger.warn('dependency unavailable', { method: ctx.method, path: ctx.path, requestId: ctx.state.requestId, ...describe(err) });
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

const databaseUnavailable = () => unavailable('The database is unavailable; retry later.');

/** The stack, and where the error has causes (a Temporal call's gRPC status, say) every cause's message and the gRPC status. */
function describe(err: unknown): Record<string, unknown> {
  const { error: chain, ...grpc } = errorFields(err);
  const hasCause = err instanceof Error && err.cause !== undefined;
  return { error: err instanceof Error ? (err.stack ?? err.message) : String(err), ...(hasCause ? { causes: chain } : {}), ...grpc };
}
