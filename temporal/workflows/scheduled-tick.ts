import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { runTickBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  summary: 'start the executions of one batch of tickets',
});

/** Batches per run before the history is rolled over with continue-as-new. */
const BATCHES_PER_RUN = 100;

export type ScheduledTickInput = { workflowId: string; cursor?: string | null };

/**
 * One tick of a scheduled workflow, started by its Temporal Schedule (overlap policy: skip,
 * so a tick that finds the previous one still running does not start). Walks the matching
 * tickets in batches with no fixed cap.
 */
export async function scheduledTick(input: ScheduledTickInput): Promise<void> {
  const tickId = workflowInfo().workflowId;
  let cursor = input.cursor ?? null;
  for (let i = 0; i < BATCHES_PER_RUN; i++) {
    const batch = await runTickBatch({ workflowId: input.workflowId, tickId, cursor });
    if (batch.done) return;
    cursor = batch.cursor;
  }
  await continueAsNew<typeof scheduledTick>({ workflowId: input.workflowId, cursor });
}
