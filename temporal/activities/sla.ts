import { fireDue } from '../../src/sla/timers.ts';
import type { ActivityDeps } from './deps.ts';
import type { SlaActivities } from './types.ts';

/** The activity of a ticket's service-level timers (slaClocks): src/sla/timers.ts, fireDue. */
export function createSlaActivities(deps: Pick<ActivityDeps, 'orm'>): SlaActivities {
  return {
    async slaInstantsDue(input) {
      return fireDue(deps.orm, input);
    },
  };
}
