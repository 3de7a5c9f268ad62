import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { GraphNode } from '../../../src/graph/index.ts';
import type { Activities } from '../../activities/types.ts';

/**
 * Deskflow's own work, in the worker's process: short database writes, retried for as long as
 * the database is away (an outage is waited out, never turned into a failure); only a broken
 * rule (non-retryable) fails. The backoff is capped at 5 seconds so that runs move again within
 * seconds of the database coming back, however long it was away. Local activities of one
 * workflow task cost one round trip to Temporal together.
 */
const RETRY_UNTIL_IT_WORKS = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' } as const;
export const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute', retry: RETRY_UNTIL_IT_WORKS });

/** An outbound request: a regular activity (it may take seconds), each attempt with the same Idempotency-Key. */
export function outbound(node: GraphNode) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
    summary: `${node.id}: http_request`,
  });
}
