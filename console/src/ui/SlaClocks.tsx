import type { Ticket } from '../api.ts';

/**
 * Where a ticket's SLA clocks (first reply due, resolution due) will show on its page. The API
 * has no SLA yet, so there is nothing to show and nothing is drawn: no placeholder, no guess.
 */
export function SlaClocks(_props: { ticket: Ticket }) {
  return null;
}
