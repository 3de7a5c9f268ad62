import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import type { TicketPriority, TicketStatus } from '../graph/index.ts';
import { foldAll, type ClockEvent, type CreatedEvent, type SlaState, type Terms } from './clock.ts';

/** What a replay needs to know of a ticket itself. */
export type ReplayedTicket = { id: string; createdAt: Date | string; customerEmail: string; status: TicketStatus; priority: TicketPriority };

type ChangeRow = { ticket_id: string; type: 'ticket_created' | 'ticket_updated'; created_at: string | Date; status: { from?: TicketStatus; to?: TicketStatus } | TicketStatus | null; priority: { from?: TicketPriority; to?: TicketPriority } | TicketPriority | null };
type MessageRow = { ticket_id: string; direction: 'inbound' | 'outbound'; sender_email: string; created_at: string | Date };

/**
 * A ticket's history as the clocks read it, from what Deskflow recorded: its creation (status
 * and priority from its ticket_created event), its status and priority changes (ticket_updated
 * events), and its messages after the first (a customer's inbound message, or an outbound reply;
 * other senders' messages do not count). Outbox events are kept OUTBOX_RETENTION_DAYS: older
 * changes are gone, and the ticket then counts as having had, from its creation, the status and
 * priority its oldest change still held started from (or, without any, those it has now).
 * Messages are kept for good. Two statements for the whole batch of tickets.
 */
export async function recordedHistory(em: EntityManager, tickets: readonly ReplayedTicket[]): Promise<Map<string, { created: CreatedEvent; events: ClockEvent[] }>> {
  const histories = new Map<string, { created: CreatedEvent; events: ClockEvent[] }>();
  if (tickets.length === 0) return histories;
  const ids = tickets.map((t) => t.id);
  const [changes, messages] = await Promise.all([
    sql<ChangeRow>(
      em,
      `select "ticket_id", "type", "created_at",
              case when "type" = 'ticket_created' then "payload"->'ticket'->'status' else "payload"->'changes'->'status' end as "status",
              case when "type" = 'ticket_created' then "payload"->'ticket'->'priority' else "payload"->'changes'->'priority' end as "priority"
         from "outbox_events"
        where "ticket_id" = any($1) and "type" in ('ticket_created', 'ticket_updated')
        order by "created_at", "id"`,
      [ids],
    ),
    sql<MessageRow>(
      em,
      `select "ticket_id", "direction", "sender_email", "created_at" from "messages" where "ticket_id" = any($1) and "seq" > 1 order by "ticket_id", "seq"`,
      [ids],
    ),
  ]);
  const changesOf = groupBy(changes, (c) => c.ticket_id);
  const messagesOf = groupBy(messages, (m) => m.ticket_id);
  for (const ticket of tickets) {
    const createdAt = pgTimestamp(ticket.createdAt).getTime();
    const own = changesOf.get(ticket.id) ?? [];
    const creation = own.find((c) => c.type === 'ticket_created');
    const updates = own.filter((c) => c.type === 'ticket_updated');
    const firstFrom = <K extends 'status' | 'priority'>(key: K) => {
      const change = updates.find((u) => u[key] !== null && typeof u[key] === 'object' && (u[key] as { from?: unknown }).from !== undefined);
      return change ? ((change[key] as { from: ChangeRow[K] }).from as K extends 'status' ? TicketStatus : TicketPriority) : undefined;
    };
    const created: CreatedEvent = {
      type: 'created',
      at: createdAt,
      status: (typeof creation?.status === 'string' ? creation.status : firstFrom('status')) ?? ticket.status,
      priority: (typeof creation?.priority === 'string' ? creation.priority : firstFrom('priority')) ?? ticket.priority,
    };
    // At one instant, changes come before messages: a reply that reopens the ticket is a message to an open ticket.
    const timed: Array<{ at: number; order: number; event: ClockEvent }> = [];
    for (const u of updates) {
      const at = pgTimestamp(u.created_at).getTime();
      const status = u.status !== null && typeof u.status === 'object' ? u.status.to : undefined;
      const priority = u.priority !== null && typeof u.priority === 'object' ? u.priority.to : undefined;
      if (status) timed.push({ at, order: 0, event: { type: 'status', at, to: status } });
      if (priority) timed.push({ at, order: 0, event: { type: 'priority', at, to: priority } });
    }
    const customer = ticket.customerEmail.trim().toLowerCase();
    for (const m of messagesOf.get(ticket.id) ?? []) {
      const at = pgTimestamp(m.created_at).getTime();
      if (m.direction === 'outbound') timed.push({ at, order: 1, event: { type: 'reply', at } });
      else if (m.sender_email.trim().toLowerCase() === customer) timed.push({ at, order: 1, event: { type: 'customer_message', at } });
    }
    timed.sort((a, b) => a.at - b.at || a.order - b.order);
    histories.set(ticket.id, { created, events: timed.map((t) => t.event) });
  }
  return histories;
}

/** The clocks of each ticket after its whole recorded history, counted with `termsFor(ticket)`. */
export async function replayStates(em: EntityManager, tickets: ReadonlyArray<ReplayedTicket & { terms: Terms }>): Promise<Map<string, SlaState>> {
  const histories = await recordedHistory(em, tickets);
  const states = new Map<string, SlaState>();
  for (const ticket of tickets) {
    const history = histories.get(ticket.id)!;
    states.set(ticket.id, foldAll(history.created, ticket.terms, history.events));
  }
  return states;
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
