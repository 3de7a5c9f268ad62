import { ConnectionException, DriverException } from '@mikro-orm/core';
import { AppError } from '../errors.ts';

/**
 * The one rule for "a dependency is away, wait it out" versus "a real failure": the API answers
 * the first with a 503 (src/http/errors.ts), the mail importer leaves the mail to be read again
 * once the dependency is back (src/mail/importer.ts) instead of recording it as failed.
 *
 * Decided by an error's class and code (never its message), on the error and its causes.
 */

/**
 * Socket errors of a connection, and PostgreSQL's SQLSTATEs for a server that is going away
 * (57P…), out of connections (53300) or too slow (57014: a statement timeout). Class 08 (connection
 * exceptions) counts too, except 08P01: a protocol violation is caused by the statement, not an outage.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '53300', '57014']);

const isUnreachableCode = (code: string) => UNREACHABLE_CODES.has(code) || code.startsWith('57P') || (code.startsWith('08') && code !== '08P01');

/**
 * True for an error that says a dependency could not be reached or stopped answering: a
 * connection error, a socket error, a database server shutting down or out of connections, a
 * statement timeout, a driver error without any SQLSTATE (the client gave up on the connection:
 * it timed out or was terminated), or a 503 already decided (Temporal did not answer: the
 * engine's client says so). Errors the database reports about the statement itself carry a
 * SQLSTATE and are not outages.
 */
export function isOutage(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof AppError && e.status === 503) return true;
    if (e instanceof ConnectionException) return true;
    if (typeof e.code === 'string' && isUnreachableCode(e.code)) return true;
    if (e instanceof DriverException && !e.code) return true;
  }
  return false;
}

/**
 * `isOutage`, settled for errors that say nothing of their cause (node-postgres reports a
 * connection lost while opening a transaction as a bare Error): when the database does not
 * answer either, the work met an outage, not a bug. An AppError is never settled that way: it
 * says what it is.
 */
export async function isOutageOrUnanswered(err: unknown, databaseAnswers?: () => Promise<boolean>): Promise<boolean> {
  if (isOutage(err)) return true;
  if (err instanceof AppError || !databaseAnswers) return false;
  return !(await databaseAnswers());
}
