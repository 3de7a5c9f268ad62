import type { EntityManager } from '@mikro-orm/postgresql';
import { OutboxEvent, type EventType } from './entity.ts';
import { newId } from '../ids.ts';

/**
 * Who caused a change. Changes made by a workflow's actions carry the chain of workflows
 * that led to them, so the relay can refuse to start a workflow again for the same ticket
 * within one chain and stop chains at the depth limit (CONTRACT §5).
 */
export type Actor =
  | { type: 'api' }
  | { type: 'workflow'; workflowId: string; executionId: string; chain: string[] };

export const API_ACTOR: Actor = { type: 'api' };

export type EventCause = { workflowId: string; executionId: string; chain: string[] } | null;

export function causeOf(actor: Actor): EventCause {
  return actor.type === 'workflow' ? { workflowId: actor.workflowId, executionId: actor.executionId, chain: actor.chain } : null;
}

/** Adds an outbox row to the unit of work of `em`; it commits with the change it describes. */
export function recordEvent(
  em: EntityManager,
  event: { workspaceId: string; type: EventType; ticketId: string | null; payload: Record<string, unknown>; actor: Actor; at: Date },
): OutboxEvent {
  return em.create(OutboxEvent, {
    id: newId(),
    workspace: event.workspaceId,
    type: event.type,
    ticketId: event.ticketId,
    payload: { ...event.payload, cause: causeOf(event.actor) },
    createdAt: event.at,
    deliveredAt: null,
    attempts: 0,
    lastError: null,
  });
}
