/**
 * The value sets of a ticket's enumerated fields (docs/contract.md §2). The pure graph
 * module owns them, because workflow conditions and actions use the same values.
 */
import {
  codePointLength,
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

/** The longest tag, in characters (after trimming). */
export const TAG_MAX_LENGTH = 100;

/**
 * A tag as tickets keep it (docs/contract.md §2, Tags): trimmed, 1-100 characters, not blank;
 * null when `tag` is none. One rule for the add_tag and remove_tag actions and the tag routes.
 */
export function normalTag(tag: string): string | null {
  const trimmed = tag.trim();
  return trimmed === '' || codePointLength(trimmed, TAG_MAX_LENGTH) > TAG_MAX_LENGTH ? null : trimmed;
}
