// What the "Try it" panel checks before it asks for a dry run, and which ticket its search
// picks. Pure; unit-tested in test/unit/console/try.test.ts.

import { needsTicketSentence, ticketActionsReached, type TriggerType, type WorkflowGraph } from '../../../src/graph/index.ts';
import type { Ticket } from '../api-types.ts';

/** Triggers whose runs always have a ticket: the event is something that happened to one. */
const TICKET_TRIGGERS: readonly TriggerType[] = ['ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added'];

/**
 * Why a dry run without a ticket would not show what a run does (null when it would). A
 * trigger that happens to tickets always has one, so the dry run is not asked for (`blocks`);
 * a manual, webhook or scheduled run can go without, and is told which actions would fail.
 */
export function missingTicket(triggerType: TriggerType, graph: WorkflowGraph, data: Record<string, unknown>): { message: string; blocks: boolean } | null {
  if (TICKET_TRIGGERS.includes(triggerType)) {
    return { message: `No ticket chosen: a ${triggerType.replace(/_/g, ' ')} run always has one. Choose the ticket to try it on (search by subject).`, blocks: true };
  }
  const needy = ticketActionsReached(graph, { data });
  if (needy.length === 0) return null;
  return { message: `No ticket chosen: ${needsTicketSentence(needy)}, so the run would fail there. Choose one to try it on (search by subject).`, blocks: false };
}

/** The ticket a search picks: the one pasted by id, else the first found (the API lists best matches first). */
export function pickedTicket(search: string, found: readonly Ticket[]): string {
  const text = search.trim();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return text.toLowerCase();
  return found[0]?.id ?? '';
}
