import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { validationFailed } from '../errors.ts';
import { recordEvent, type Actor } from '../events/outbox.ts';
import { isUuid, newId } from '../ids.ts';
import { Ticket } from '../tickets/entity.ts';
import { reopensOnCustomerReply } from '../tickets/policy.ts';
import { ticketContext } from '../tickets/presenter.ts';
import { Workspace } from '../workspaces/entity.ts';
import { Message } from './entity.ts';
import { presentMessage } from './presenter.ts';
import { parseBeforeTimestamp } from './schema.ts';

export type MessageAddedEvent = 'emitted' | 'skipped_sender_mismatch';

export type NewMessage = {
  body: string;
  senderEmail: string;
  senderName?: string | null;
  bodyHtml?: string | null;
  direction: 'inbound' | 'outbound';
  /** Makes the write idempotent: a second add with the same key returns the first message. */
  idempotencyKey?: string;
};

/** interface.md, Events: the sender is the ticket's customer, compared trimmed and case-insensitively. */
export function isCustomerReply(ticket: Pick<Ticket, 'customerEmail'>, message: NewMessage): boolean {
  return message.direction === 'inbound' && message.senderEmail.trim().toLowerCase() === ticket.customerEmail.trim().toLowerCase();
}

export class MessageService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * Saves a message under the ticket's row lock, which hands out the next per-ticket sequence
   * number (a total order that timestamps alone cannot give). A customer reply writes
   * message_received and reopens a pending or solved ticket (with its ticket_updated event).
   */
  async add(workspaceId: string, ticketId: string, input: NewMessage, actor: Actor): Promise<{ message: Message; event: MessageAddedEvent }> {
    return this.em.transactional(async (em) => {
      const ticket = await em.findOneOrFail(Ticket, { id: ticketId, workspace: workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (input.idempotencyKey) {
        const earlier = await em.findOne(Message, { idempotencyKey: input.idempotencyKey });
        if (earlier) return { message: earlier, event: 'skipped_sender_mismatch' as const };
      }
      const now = new Date();
      ticket.messageSeq += 1;
      ticket.updatedAt = now;
      const message = em.create(Message, {
        id: newId(),
        ticket: ticket.id,
        seq: ticket.messageSeq,
        direction: input.direction,
        senderEmail: input.senderEmail,
        senderName: input.senderName?.trim() ? input.senderName : null,
        body: input.body,
        bodyHtml: input.bodyHtml ?? null,
        createdAt: now,
        idempotencyKey: input.idempotencyKey ?? null,
      });
      if (!isCustomerReply(ticket, input)) return { message, event: 'skipped_sender_mismatch' as const };

      const base = { workspaceId, ticketId: ticket.id, actor, at: now };
      if (reopensOnCustomerReply(ticket.status)) {
        const workspace = await em.findOneOrFail(Workspace, { id: workspaceId }, { fields: ['reopenOnCustomerReply'] });
        if (workspace.reopenOnCustomerReply) {
          const previous = ticketContext(ticket);
          const changes: Record<string, { from: unknown; to: unknown }> = { status: { from: ticket.status, to: 'open' } };
          if (ticket.resolutionType) changes.resolutionType = { from: ticket.resolutionType, to: null };
          ticket.status = 'open';
          ticket.resolutionType = null;
          recordEvent(em, { ...base, type: 'ticket_updated', payload: { ticket: ticketContext(ticket), previous, changes } });
        }
      }
      recordEvent(em, {
        ...base,
        type: 'message_received',
        payload: { ticket: ticketContext(ticket), message: presentMessage(message) },
      });
      return { message, event: 'emitted' as const };
    });
  }

  /**
   * The newest `limit` messages (older than `before` when given), returned oldest-first, with
   * the ticket's total and whether older messages exist beyond the window.
   */
  async list(ticketId: string, opts: { limit: number; before?: string }) {
    let older: Record<string, unknown> = {};
    if (opts.before !== undefined) {
      if (isUuid(opts.before)) {
        const cursor = await this.em.findOne(Message, { id: opts.before, ticket: ticketId }, { fields: ['seq'] });
        if (!cursor) throw validationFailed([{ path: 'before', message: 'before is not a message of this ticket.' }]);
        older = { seq: { $lt: cursor.seq } };
      } else {
        const at = parseBeforeTimestamp(opts.before);
        if (!at) {
          throw validationFailed([
            { path: 'before', message: 'before must be a message id of this ticket or a valid ISO 8601 date or date-time with Z or an offset.' },
          ]);
        }
        older = { createdAt: { $lt: at } };
      }
    }
    const [rows, total] = await Promise.all([
      this.em.find(Message, { ticket: ticketId, ...older }, { orderBy: { seq: 'desc' }, limit: opts.limit + 1 }),
      this.em.count(Message, { ticket: ticketId }),
    ]);
    const truncated = rows.length > opts.limit;
    const window = rows.slice(0, opts.limit).reverse();
    return { messages: window, total, truncated };
  }
}
