import type { RunContext, TriggerType, WorkflowGraph } from '../graph/index.ts';

/**
 * What the `runGraph` Temporal workflow receives: everything it needs to run one execution,
 * including the graph of the pinned version, so edits and deletions of the workflow never
 * change a run in flight. Types only: imported by the workflow sandbox.
 */
export type RunGraphInput = {
  executionId: string;
  workspaceId: string;
  workflowId: string;
  workflowVersion: number;
  workflowName: string;
  triggeredBy: TriggerType;
  ticketId: string | null;
  graph: WorkflowGraph;
  context: RunContext;
  /** Workflow ids of the automation chain that led here, this workflow last (loop guard). */
  chain: string[];
  /**
   * When the execution was created (ISO 8601): what `now` reads in conditions before the first
   * action, as when the execution was walked to decide whether it needs a run. Absent in runs
   * started before it was sent; they read the run's time.
   */
  createdAt?: string;
};
