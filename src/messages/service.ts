import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { validationFailed } from '../errors.ts';
import { eventsInsert, type NewEvent } from '../events/outbox.ts';
import { parseIsoInstant } from '../graph/index.ts';
import { isUuid, newId } from '../ids.ts';
import { inCallersTransaction, sql, writeTogether, type Statement } from '../common/sql.ts';
import { ticketContext } from '../tickets/context.ts';
import { reopensOnCustomerReply } from '../tickets/policy.ts';
import type { InitialMessage } from '../tickets/service.ts';
import { readTicket, type TicketRecord } from '../tickets/store.ts';
import { reopensOnCustomerReplyIn } from '../workspaces/settings.ts';
import { Message, type Direction } from './entity.ts';
import { presentMessage } from './presenter.ts';
import { messageByIdempotencyKey, messageInsert, type MessageRecord } from './store.ts';

export type MessageAddedEvent = 'emitted' | 'skipped_sender_mismatch';

export type NewMessage = {
  body: string;
  senderEmail: string;
  senderName?: string | null;
  bodyHtml?: string | null;
  direction: Direction;
  /** Makes the write idempotent: a second add with the same key returns the first message. */
  idempotencyKey?: string;
};

/** docs/contract.md §3: the sender is the ticket's customer, compared trimmed and case-insensitively. */
export function isCustomerReply(ticket: Pick<TicketRecord, 'customerEmail'>, message: Pick<NewMessage, 'direction' | 'senderEmail'>): boolean {
  return message.direction === 'inbound' && message.senderEmail.trim().toLowerCase() === ticket.customerEmail.trim().toLowerCase();
}

/** A message the ticket at hand hands the next per-ticket sequence number: a total order that timestamps alone cannot give. */
function nextMessage(ticket: TicketRecord, input: NewMessage, at: Date): MessageRecord {
  return {
    id: newId(),
    ticket: ticket.id,
    seq: ticket.messageSeq + 1,
    direction: input.direction,
    senderEmail: input.senderEmail,
    senderName: input.senderName?.trim() ? input.senderName : null,
    body: input.body,
    bodyHtml: input.bodyHtml ?? null,
    createdAt: at,
    idempotencyKey: input.idempotencyKey ?? null,
  };
}

/** A new ticket's first message (the ticket was written with messageSeq 1): the customer's inbound message, at the ticket's creation time. */
export const initialMessage: InitialMessage = (ticket, input) => {
  const message = nextMessage({ ...ticket, messageSeq: 0 }, { ...input, direction: 'inbound' }, ticket.createdAt);
  return { message, insert: messageInsert(message) };
};

export class MessageService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * Saves a message under the ticket's row lock, which orders the messages of a ticket; the
   * ticket's updatedAt moves to the message's time. A customer reply writes message_received
   * and reopens a pending or solved ticket (with its ticket_updated event); any other message
   * (an agent's or an automation's reply, mail from someone else) writes message_added, with
   * the same payload, which starts nothing. Returns the ticket as it is afterwards.
   */
  async add(
    workspaceId: string,
    ticketId: string,
    input: NewMessage,
    actor: Actor,
  ): Promise<{ message: MessageRecord; event: MessageAddedEvent; ticket: TicketRecord }> {
    return inCallersTransaction(this.em, async (em) => {
      const before = await readTicket(em, workspaceId, ticketId, { forUpdate: true });
      if (input.idempotencyKey) {
        const earlier = await messageByIdempotencyKey(em, input.idempotencyKey);
        if (earlier) return { message: earlier, event: 'skipped_sender_mismatch' as const, ticket: before };
      }
      const now = new Date();
      const message = nextMessage(before, input, now);
      const ticket: TicketRecord = { ...before, messageSeq: message.seq, updatedAt: now };
      const customerReply = isCustomerReply(before, input);
      const reopens = customerReply && reopensOnCustomerReply(before.status) && (await reopensOnCustomerReplyIn(em, workspaceId));
      if (reopens) Object.assign(ticket, { status: 'open', resolutionType: null });
      const ticketWrite: Statement = {
        text: 'update "tickets" set "message_seq" = $2, "updated_at" = $3, "status" = $4, "resolution_type" = $5 where "id" = $1',
        parameters: [ticket.id, ticket.messageSeq, now, ticket.status, ticket.resolutionType],
      };
      const base = { workspaceId, ticketId: ticket.id, actor, at: now };
      if (!customerReply) {
        // Not a customer reply: no workflow starts, but the search index and the live feed follow it.
        const added: NewEvent = { ...base, type: 'message_added', payload: { ticket: ticketContext(ticket), message: presentMessage(message) } };
        await writeTogether(em, [ticketWrite, messageInsert(message), eventsInsert([added])]);
        return { message, event: 'skipped_sender_mismatch' as const, ticket };
      }

      const events: NewEvent[] = [];
      if (reopens) {
        const changes: Record<string, { from: unknown; to: unknown }> = { status: { from: before.status, to: 'open' } };
        if (before.resolutionType) changes.resolutionType = { from: before.resolutionType, to: null };
        events.push({ ...base, type: 'ticket_updated', payload: { ticket: ticketContext(ticket), previous: ticketContext(before), changes } });
      }
      events.push({ ...base, type: 'message_received', payload: { ticket: ticketContext(ticket), message: presentMessage(message) } });
      await writeTogether(em, [ticketWrite, messageInsert(message), eventsInsert(events)]);
      return { message, event: 'emitted' as const, ticket };
    });
  }

  /**
   * The newest `limit` messages (older than `before` when given), returned oldest-first, with
   * the ticket's total and whether older messages exist beyond the window.
   */
  async list(ticketId: string, opts: { limit: number; before?: string }) {
    const [rows, total] = await Promise.all([
      this.em.find(Message, { ticket: ticketId, ...(await this.olderThan(ticketId, opts.before)) }, { orderBy: { seq: 'desc' }, limit: opts.limit + 1 }),
      this.em.count(Message, { ticket: ticketId }),
    ]);
    const truncated = rows.length > opts.limit;
    const window = rows.slice(0, opts.limit).reverse();
    return { messages: window, total, truncated };
  }

  /**
   * The window's bound: a message id of this ticket (strictly older messages) or an ISO 8601
   * date or date-time with `Z` or an offset (messages created strictly before it).
   */
  private async olderThan(ticketId: string, before: string | undefined): Promise<Record<string, unknown>> {
    if (before === undefined) return {};
    if (isUuid(before)) {
      const cursor = await this.em.findOne(Message, { id: before, ticket: ticketId }, { fields: ['seq'] });
      if (!cursor) throw validationFailed([{ path: 'before', message: 'before is not a message of this ticket.' }]);
      return { seq: { $lt: cursor.seq } };
    }
    const at = parseIsoInstant(before, { requireOffsetWithTime: true, storable: true });
    if (at === undefined) {
      throw validationFailed([
        { path: 'before', message: 'before must be a message id of this ticket or a valid ISO 8601 date or date-time with Z or an offset.' },
      ]);
    }
    // Stored times have millisecond precision: "strictly before" a finer instant is before its next millisecond.
    return { createdAt: { $lt: new Date(Math.ceil(at)) } };
  }
}
