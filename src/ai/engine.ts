/**
 * The owner's runs on the workflow engine: one durable run per ticket, its id derived from the
 * ticket, started or woken by signal-with-start and stopped by a signal. Implemented on
 * Temporal in temporal/client.ts.
 */
export interface AiOwnerEngine {
  /** Wakes the ticket's run, starting it when none runs; harmless to repeat. */
  wakeAiOwner(run: { workspaceId: string; ticketId: string; reason: string }): Promise<void>;
  /** Tells the ticket's run that it no longer owns the ticket; a run that is not running is left alone. */
  stopAiOwner(ticketId: string, reason: string): Promise<void>;
}

/** The Temporal workflow id of a ticket's owner run (one at a time per ticket). */
export const aiOwnerWorkflowId = (ticketId: string) => `ai-owner-${ticketId}`;
