import type { GraphWalker } from './walker.ts';

/**
 * Runs ready nodes as they become ready, in parallel; the first failure stops the walk. `run`
 * does a node's work and resolves with its outcome (true/false for a branching node). Shared by
 * the run workflows and the dry run, so that both visit the nodes in the same order.
 */
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
