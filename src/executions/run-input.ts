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
};
