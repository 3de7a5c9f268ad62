import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../../src/errors.ts';

/**
 * A broken rule (an AppError of status 4xx: the ticket is gone, a value is invalid) will break
 * again on retry: it fails at once, non-retryable, with its reason. Anything else (the database
 * away, a connection reset) is thrown as it is, for the workflow's retry policy to wait out.
 */
export async function nonRetryable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  }
}
