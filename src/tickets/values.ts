/**
 * The value sets of a ticket's enumerated fields (docs/contract.md §2). The pure graph
 * module owns them, because workflow conditions and actions use the same values.
 */
import {
  RESOLUTION_TYPES,
  TICKET_PRIORITIES as PRIORITIES,
  TICKET_STATUSES as STATUSES,
  type ResolutionType,
  type TicketPriority,
  type TicketStatus,
} from '../graph/index.ts';

export { PRIORITIES, RESOLUTION_TYPES, STATUSES, type ResolutionType, type TicketPriority, type TicketStatus };

export const SOURCES = ['email', 'widget', 'api'] as const;
export type TicketSource = (typeof SOURCES)[number];

/** The assignee sentinel for the AI agent. */
export const AI_ASSIGNEE = 'ai';
