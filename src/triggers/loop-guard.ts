import type { EventCause } from '../actor.ts';

/** A chain of automations stops at this depth (docs/automations.md, "Loop guard"). */
export const MAX_CHAIN_DEPTH = 5;

export type LoopGuardStop = 'already ran in this chain for the ticket' | 'depth limit reached';

/**
 * Why a workflow must not start for an event caused by an automation chain, or null. Changes
 * made by a workflow's actions emit events like any change, but never start a workflow again
 * that already ran in the same chain, and a chain stops at MAX_CHAIN_DEPTH.
 */
export function loopGuard(cause: EventCause, workflowId: string): LoopGuardStop | null {
  if (!cause) return null;
  if (cause.chain.includes(workflowId)) return 'already ran in this chain for the ticket';
  if (cause.chain.length >= MAX_CHAIN_DEPTH) return 'depth limit reached';
  return null;
}
