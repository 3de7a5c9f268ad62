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

/** Starts and cancels runs on the workflow engine; implemented on Temporal in temporal/client.ts. */
export interface WorkflowEngine {
  /** Starts the run with id `runId`; starting an already started run is a no-op. */
  start(runId: string, input: RunGraphInput): Promise<void>;
  /** Requests cancellation; the run records `cancelled` itself. Unknown or finished runs are ignored. */
  cancel(runId: string): Promise<void>;
  /** Resolves when the engine answers. */
  ping(): Promise<void>;
}
