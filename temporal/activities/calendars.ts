import { businessDeadline, evaluateWithCalendars } from '../../src/calendars/runs.ts';
import { nonRetryable } from './broken-rule.ts';
import type { ActivityDeps } from './deps.ts';
import type { Activities } from './types.ts';

/**
 * What a run asks of its workspace's calendars, answered outside the workflow with the
 * calendars as they are now and recorded in the run's history, so that a replay or another
 * worker never computes it again (docs/automations.md, "Business hours").
 */
export function createCalendarActivities(deps: Pick<ActivityDeps, 'orm'>): Pick<Activities, 'businessDeadline' | 'evaluateWithCalendars'> {
  return {
    /** The deadline of a business-time wait that begins now. */
    async businessDeadline(input) {
      return nonRetryable(() => businessDeadline(deps.orm.em.fork(), input));
    },

    /** A condition that names calendars, evaluated at the run's `now` (recorded like the deadline above). */
    async evaluateWithCalendars(input) {
      return nonRetryable(() => evaluateWithCalendars(deps.orm.em.fork(), input));
    },
  };
}
