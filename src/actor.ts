/**
 * Who caused a change. Changes made by a workflow's actions carry the chain of workflows that
 * led to them, so that event delivery can refuse to start a workflow again within one chain and
 * stop chains at the depth limit (docs/automations.md, "Loop guard").
 */
export type Actor =
  | { type: 'api' }
  | { type: 'workflow'; workflowId: string; executionId: string; chain: string[] };

export const API_ACTOR: Actor = { type: 'api' };

/** What an event records of the actor that caused it: the automation chain, or null for the API. */
export type EventCause = { workflowId: string; executionId: string; chain: string[] } | null;

export function causeOf(actor: Actor): EventCause {
  return actor.type === 'workflow' ? { workflowId: actor.workflowId, executionId: actor.executionId, chain: actor.chain } : null;
}
