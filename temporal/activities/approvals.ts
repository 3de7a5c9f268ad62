import { requestApproval, settleApproval } from '../../src/approvals/runs.ts';
import { nonRetryable } from './broken-rule.ts';
import type { ActivityDeps } from './deps.ts';
import { toRecord } from './steps.ts';
import type { Activities } from './types.ts';

/**
 * A run's approvals (request_approval, src/approvals/runs.ts): asking, with the node's waiting
 * step, and reading where an approval stands once woken or expiring it at the time-out. What
 * they answer is recorded in the run's history, so a replay never asks the database again.
 */
export function createApprovalActivities(deps: Pick<ActivityDeps, 'orm'>): Pick<Activities, 'requestApproval' | 'settleApproval'> {
  return {
    async requestApproval({ steps, ...request }) {
      return nonRetryable(() => requestApproval(deps.orm.em.fork(), request, steps.map(toRecord)));
    },
    async settleApproval(input) {
      return nonRetryable(() => settleApproval(deps.orm.em.fork(), input));
    },
  };
}
