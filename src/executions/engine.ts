import type { RunGraphInput } from './run-input.ts';

/**
 * The workflow engine as Deskflow uses it: runs are addressed by the id of their Temporal
 * workflow (`Execution.temporalWorkflowId`). Implemented on Temporal in temporal/client.ts.
 */
export interface WorkflowEngine {
  /** Starts the run; starting an already started run is a no-op. */
  start(temporalWorkflowId: string, input: RunGraphInput): Promise<void>;
  /** Requests cancellation; the run records `cancelled` itself. Unknown or finished runs are ignored. */
  cancel(temporalWorkflowId: string): Promise<void>;
  /** Tells a run that its ticket's customer replied (wait_for_reply). Finished runs are ignored. */
  signalCustomerReply(temporalWorkflowId: string, reply: { messageId: string; at: string }): Promise<void>;
  /** Wakes a run waiting for this approval (request_approval): it reads the decision itself. Finished runs are ignored. */
  signalApprovalDecided(temporalWorkflowId: string, decided: { approvalId: string }): Promise<void>;
  /** Resolves when the engine answers. */
  ping(): Promise<void>;
}
