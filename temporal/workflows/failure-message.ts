import { ActivityFailure } from '@temporalio/workflow';

/** The readable reason of a failure: an activity's own message rather than "Activity task failed". */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
