import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { forbidden } from '../errors.ts';
import { newId } from '../ids.ts';
import { recordEvent } from '../events/outbox.ts';
import type { AssigneeDirectory } from './assignees.ts';
import { ticketContext } from './context.ts';
import { countTickets } from './counts.ts';
import type { TicketStatus } from './values.ts';
import { inTransaction } from '../common/sql.ts';
import { insertTicket, pageOfTickets, readTicket, updateTicket, type TicketRecord } from './store.ts';
import { applyTicketChange, type TicketChange } from './change.ts';
import type { CreateTicketInput } from './schema.ts';

export type { TicketChange } from './change.ts';

/** Writes a new ticket's first message in the transaction of `em` (the messages module does it). */
export type InitialMessageWriter = (
  em: EntityManager,
  ticket: TicketRecord,
  message: { body: string; bodyHtml?: string | null; senderEmail: string; senderName: string | null },
) => Promise<void>;

/** What a ticket is made of; `bodyHtml` (the first message's HTML) comes only from mail: the API's body has none. */
export type NewTicket = CreateTicketInput & { bodyHtml?: string | null };

export class TicketService {
  private readonly em: EntityManager;
  private readonly assignees: AssigneeDirectory;
  private readonly writeInitialMessage: InitialMessageWriter;

  constructor(em: EntityManager, deps: { assignees: AssigneeDirectory; initialMessage: InitialMessageWriter }) {
    this.em = em;
    this.assignees = deps.assignees;
    this.writeInitialMessage = deps.initialMessage;
  }

  /** Creates the ticket and its initial inbound message, with a ticket_created event, in one transaction. */
  async create(workspaceId: string, input: NewTicket, actor: Actor): Promise<TicketRecord> {
    return inTransaction(this.em, async (em) => {
      const now = new Date();
      const customerName = input.customerName?.trim() ? input.customerName : null;
      const ticket: TicketRecord = {
        id: newId(),
        workspace: workspaceId,
        subject: input.subject,
        status: 'open',
        priority: 'medium',
        customerEmail: input.customerEmail,
        customerName,
        source: input.source ?? 'api',
        assignedTo: null,
        resolutionType: null,
        tags: [],
        language: input.language ?? null,
        messageSeq: 1,
        createdAt: now,
        updatedAt: now,
      };
      await insertTicket(em, ticket);
      await this.writeInitialMessage(em, ticket, { body: input.body, bodyHtml: input.bodyHtml ?? null, senderEmail: input.customerEmail, senderName: customerName });
      await recordEvent(em, { workspaceId, type: 'ticket_created', ticketId: ticket.id, payload: { ticket: ticketContext(ticket) }, actor, at: now });
      return ticket;
    });
  }

  /** The ticket if it belongs to the workspace; 404 otherwise (malformed ids included). */
  async get(workspaceId: string, ticketId: string): Promise<TicketRecord> {
    return readTicket(this.em, workspaceId, ticketId);
  }

  /** One page (newest first) plus the total, which counters kept with every write give without counting rows. */
  async list(workspaceId: string, opts: { page: number; perPage: number; status?: TicketStatus }) {
    const [tickets, total] = await Promise.all([
      pageOfTickets(this.em, workspaceId, { limit: opts.perPage, offset: (opts.page - 1) * opts.perPage, status: opts.status }),
      countTickets(this.em, workspaceId, opts.status),
    ]);
    return { tickets, total };
  }

  /**
   * Applies a change under the ticket's row lock, so concurrent updates serialize. Writes
   * ticket_updated with the fields that really changed (from → to), ticket_closed when the
   * status became closed, and tag_added per new tag. A human assignee must be a current
   * member or admin of the workspace (403).
   */
  async update(workspaceId: string, ticketId: string, change: TicketChange, actor: Actor): Promise<TicketRecord> {
    if (change.assignedTo !== undefined && !(await this.assignees.isAssignable(workspaceId, change.assignedTo))) {
      throw forbidden(`"${change.assignedTo}" is not a current member or admin of this workspace.`);
    }
    return inTransaction(this.em, async (em) => {
      const locked = await readTicket(em, workspaceId, ticketId, { forUpdate: true });
      const before = ticketContext(locked);
      const { ticket, changes, addedTags: added } = applyTicketChange(locked, change, actor);
      if (Object.keys(changes).length === 0) return ticket;
      const now = new Date();
      ticket.updatedAt = now;
      await updateTicket(em, ticket);
      const after = ticketContext(ticket);
      const base = { workspaceId, ticketId: ticket.id, actor, at: now };
      await recordEvent(em, { ...base, type: 'ticket_updated', payload: { ticket: after, previous: before, changes } });
      if (changes.status && ticket.status === 'closed') await recordEvent(em, { ...base, type: 'ticket_closed', payload: { ticket: after } });
      for (const tag of added) await recordEvent(em, { ...base, type: 'tag_added', payload: { ticket: after, tag } });
      return ticket;
    });
  }
}
