import { ActivityFailure } from '@temporalio/workflow';
import type { GraphWalker } from '../../src/graph/index.ts';

/** Runs ready nodes as they become ready, in parallel; the first failure stops the walk. */
export function walk(walker: GraphWalker, run: (id: string) => Promise<boolean | undefined>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const launch = (ids: string[]) => {
      for (const id of ids) {
        active += 1;
        run(id).then(
          (outcome) => {
            active -= 1;
            if (failed) return;
            launch(walker.complete(id, outcome));
            if (active === 0) resolve();
          },
          (err) => {
            active -= 1;
            if (!failed) {
              failed = true;
              reject(err);
            }
          },
        );
      }
    };
    launch(walker.start());
    if (active === 0) resolve();
  });
}

/** The readable reason of a failure: an activity's own message rather than "Activity task failed". */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
