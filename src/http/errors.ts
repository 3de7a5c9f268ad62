import type { Context, Next } from 'koa';
import { ConnectionException, DriverException } from '@mikro-orm/core';
import { AppError, notFound, unavailable } from '../errors.ts';
import { errorFields, type Logger } from '../logger.ts';
import { bodyReadError } from './body.ts';

/**
 * Every failure leaves as `{ error: { code, message, details? } }`. Known errors keep their
 * status; a database that cannot be reached is a 503; anything else is a bug, logged and
 * answered 500 without internals. `databaseAnswers` settles the errors that say nothing of
 * their cause (node-postgres reports a connection lost while opening a transaction as a bare
 * Error): when the database does not answer either, the request met an outage, not a bug.
 */
export function errorHandler(logger: Logger, opts: { databaseAnswers?: () => Promise<boolean> } = {}) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('Route');
    } catch (err) {
      let appError = toAppError(err, ctx);
      if (!appError && opts.databaseAnswers && !(await opts.databaseAnswers())) appError = databaseUnavailable();
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

function toAppError(err: unknown, ctx: Context): AppError | null {
  if (err instanceof AppError) return err;
  return bodyReadError(err, ctx.state.bodyLimit) ?? (isDatabaseUnavailable(err) ? databaseUnavailable() : null);
}

/** Socket errors of the connection, and PostgreSQL's SQLSTATEs for a server that is going away, overloaded or too slow. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300', '57014']);

/**
 * True for an error that says the database could not be reached or stopped answering, by its
 * class or code: a connection error, a socket error, a server shutting down or out of
 * connections, a statement timeout, or a driver error without any SQLSTATE (the client gave up
 * on the connection: it timed out or was terminated). Errors the server reports about the
 * statement itself carry a SQLSTATE and are not outages.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof ConnectionException) return true;
    // 08P01 (protocol violation) is caused by the request, not an outage: it must not hide as a 503.
    if (e.code && (UNAVAILABLE_CODES.has(e.code) || (e.code.startsWith('08') && e.code !== '08P01'))) return true;
    if (e instanceof DriverException && !e.code) return true;
  }
  return false;
}

/** The stack, and where the error has causes (a Temporal call's gRPC status, say) every cause's message and the gRPC status. */
function describe(err: unknown): Record<string, unknown> {
  const { error: chain, ...grpc } = errorFields(err);
  const hasCause = err instanceof Error && err.cause !== undefined;
  return { error: err instanceof Error ? (err.stack ?? err.message) : String(err), ...(hasCause ? { causes: chain } : {}), ...grpc };
}
