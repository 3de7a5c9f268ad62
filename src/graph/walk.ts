import type { GraphWalker } from './walker.ts';

export type WalkOptions = {
  /**
   * Asked at the first failure: true to let the nodes still running finish (a run records
   * every branch's outcome) before the walk rejects; otherwise it rejects at once. Either way
   * no node starts after a failure.
   */
  settle?: () => boolean;
};

/**
 * Runs ready nodes as they become ready, in parallel; the first failure stops the walk and is
 * what it rejects with. `run` does a node's work and resolves with its outcome (true/false for a
 * branching node). Shared by the run workflows and the dry run, so that both visit the nodes in
 * the same order.
 */
export function walk(walker: GraphWalker, run: (id: string) => Promise<boolean | undefined>, opts: WalkOptions = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let active = 0;
    let failure: { err: unknown; settling: boolean } | null = null;
    const settled = () => {
      if (failure?.settling && active === 0) reject(failure.err);
    };
    const launch = (ids: string[]) => {
      for (const id of ids) {
        active += 1;
        run(id).then(
          (outcome) => {
            active -= 1;
            if (failure) return settled();
            launch(walker.complete(id, outcome));
            if (active === 0) resolve();
          },
          (err) => {
            active -= 1;
            if (failure) return settled();
            failure = { err, settling: opts.settle?.() ?? false };
            if (failure.settling) settled();
            else reject(err);
          },
        );
      }
    };
    launch(walker.start());
    if (active === 0) resolve();
  });
}
