import type { Actor } from '../actor.ts';
import { AI_ASSIGNEE, type ResolutionType, type TicketStatus } from './values.ts';

const RESOLVED: ReadonlySet<TicketStatus> = new Set(['solved', 'closed']);

/**
 * docs/contract.md §2: resolutionType is set when a ticket becomes solved or closed and none is set
 * yet (by whom it was resolved), and cleared when the ticket moves back to open, pending or
 * escalated. An explicit value (a workflow action) wins.
 */
export function resolutionAfter(opts: {
  status: TicketStatus;
  current: ResolutionType | null;
  assignedTo: string | null;
  actor: Actor;
}): ResolutionType | null {
  if (!RESOLVED.has(opts.status)) return null;
  if (opts.current) return opts.current;
  if (opts.assignedTo === AI_ASSIGNEE) return 'resolved_by_ai';
  return opts.actor.type === 'workflow' ? 'resolved_by_automation' : 'resolved_by_agent';
}

/** docs/contract.md §3: a customer reply reopens a pending or solved ticket; a closed ticket stays closed. */
export function reopensOnCustomerReply(status: TicketStatus): boolean {
  return status === 'pending' || status === 'solved';
}
