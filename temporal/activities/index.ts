import { createActionActivities } from './actions.ts';
import { createApprovalActivities } from './approvals.ts';
import { createCalendarActivities } from './calendars.ts';
import type { ActivityDeps } from './deps.ts';
import { createRunActivities } from './runs.ts';
import { createSlaActivities } from './sla.ts';
import { createTickActivities } from './ticks.ts';
import type { Activities, SlaActivities } from './types.ts';

/**
 * The activities of the run workflows (their signatures: ./types.ts). Each opens its own unit
 * of work. An action's effect and its step record commit in one transaction, and a retried
 * action whose step already completed returns the recorded outcome instead of acting twice. A
 * broken rule (an AppError of status 4xx: the ticket is gone, a value is invalid) fails at
 * once; anything else (the database away, a connection reset) is thrown as it is, for the
 * workflow's retry policy to wait out.
 */
export function createActivities(deps: ActivityDeps): Activities & SlaActivities {
  return {
    ...createRunActivities(deps),
    ...createActionActivities(deps),
    ...createCalendarActivities(deps),
    ...createTickActivities(deps),
    ...createApprovalActivities(deps),
    ...createSlaActivities(deps),
  };
}
