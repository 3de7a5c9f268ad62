import { runTickBatch, unfinishedEarlierTickRuns } from '../../src/triggers/ticks.ts';
import { servicesOf, type ActivityDeps } from './deps.ts';
import type { Activities } from './types.ts';

/** The activities of a scheduled workflow's tick (scheduledTick). */
export function createTickActivities(deps: ActivityDeps): Pick<Activities, 'unfinishedEarlierTickRuns' | 'runTickBatch'> {
  return {
    /** How many executions of earlier ticks of the workflow are still unfinished. */
    async unfinishedEarlierTickRuns(input) {
      return unfinishedEarlierTickRuns(servicesOf(deps).em, input.workflowId, new Date(input.tickStartedAt));
    },

    /** One batch of a scheduled tick: creates and starts the executions of up to 200 matching tickets. */
    async runTickBatch(input) {
      const s = servicesOf(deps);
      return runTickBatch(s.em, s.dispatcher, { ...input, now: new Date() });
    },
  };
}
