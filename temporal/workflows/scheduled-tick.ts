import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/types.ts';

const options = { startToCloseTimeout: '2 minutes', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } } as const;
const { unfinishedEarlierTickRuns } = proxyActivities<Activities>({ ...options, summary: 'is an earlier tick still running?' });
const { runTickBatch } = proxyActivities<Activities>({ ...options, summary: 'start the executions of one batch of tickets' });

/** Batches per run before the history is rolled over with continue-as-new. */
const BATCHES_PER_RUN = 100;

export type ScheduledTickInput = { workflowId: string; cursor?: string | null };

/**
 * One tick of a scheduled workflow, started by its Temporal Schedule. A tick is running while
 * the executions it started run, so (docs/contract.md §8) it is skipped when executions of an earlier
 * tick are unfinished; the schedule's overlap policy (skip) covers a tick still starting its
 * batches. Walks the matching tickets in batches with no fixed cap.
 */
export async function scheduledTick(input: ScheduledTickInput): Promise<string> {
  const info = workflowInfo();
  let cursor = input.cursor ?? null;
  if (cursor === null) {
    const unfinished = await unfinishedEarlierTickRuns({ workflowId: input.workflowId, tickStartedAt: info.runStartTime.getTime() });
    if (unfinished > 0) return `skipped: ${unfinished} execution(s) of an earlier tick still running`;
  }
  let started = 0;
  for (let i = 0; i < BATCHES_PER_RUN; i++) {
    const batch = await runTickBatch({ workflowId: input.workflowId, tickId: info.workflowId, cursor });
    started += batch.started;
    if (batch.done) return `started ${started} execution(s)`;
    cursor = batch.cursor;
  }
  return continueAsNew<typeof scheduledTick>({ workflowId: input.workflowId, cursor });
}
