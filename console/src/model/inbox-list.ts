// A list of the inbox following the live feed: a ticket shown changes in its row at once, and
// leaves the list when it no longer fits the view; whatever the page cannot settle by itself (a
// ticket that may have come into the view, its place in a search) asks for the list again. Pure;
// unit-tested in test/unit/console/inbox.test.ts.

import type { Ticket } from '../api-types.ts';
import { matchesFilter, type TicketFilter } from './inbox.ts';
import type { LiveEvent } from './live.ts';

export type ListChange = {
  rows: Ticket[];
  /** Whether the list must be read again to be right (its rows, their order or its total). */
  refetch: boolean;
};

/** Where the list is: the first page of `perPage` rows shows the newest tickets at its top. */
export type ListPlace = { page: number; perPage: number };

/** The rows after `event`, as the agent `me` sees `place` in the list of `filter`. */
export function applyLiveEvent(rows: Ticket[], event: LiveEvent, filter: TicketFilter, me: string | null, place: ListPlace = { page: 1, perPage: Infinity }): ListChange {
  const fits = matchesFilter(event.ticket, filter, me);
  const at = rows.findIndex((t) => t.id === event.ticketId);
  if (at === -1) {
    // A new ticket that fits goes on top of the newest first at once; the list is read again all the same.
    const newestFirst = !filter.q?.trim() && (filter.sort ?? '-created_at') === '-created_at' && place.page === 1;
    if (event.type === 'ticket.created' && fits === true && newestFirst) return { rows: [event.ticket, ...rows].slice(0, place.perPage), refetch: true };
    // Otherwise, unless it surely does not fit, it may belong on this page now.
    return { rows, refetch: fits !== false };
  }
  const shown = rows[at];
  if (Date.parse(event.ticket.updatedAt) < Date.parse(shown.updatedAt)) return { rows, refetch: false };
  if (fits === false) return { rows: rows.filter((_, i) => i !== at), refetch: true };
  const next = rows.map((t, i) => (i === at ? event.ticket : t));
  // Sorted by last change, or matched by words: the order may have changed too.
  const reorders = !!filter.q?.trim() || filter.sort === '-updated_at' || filter.sort === 'updated_at';
  return { rows: next, refetch: reorders };
}
