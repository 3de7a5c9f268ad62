import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { newId } from '../ids.ts';
import { eventsInsert, type NewEvent } from '../events/outbox.ts';
import { notAssignable, type AssigneeDirectory } from './assignees.ts';
import { ticketContext } from './context.ts';
import { tagCountsChange } from './counts.ts';
import { listTickets, type TicketFilter, type TicketSort } from './list.ts';
import { inCallersTransaction, writeTogether, type Statement } from '../common/sql.ts';
import { readTicket, ticketInsert, ticketUpdate, type TicketRecord } from './store.ts';
import { applyTicketChange, type TicketChange } from './change.ts';
import type { CreateTicketInput } from './schema.ts';
import type { MessageRecord } from '../messages/store.ts';

export type { TicketChange } from './change.ts';

/** A new ticket's first message and its insert (the messages module makes them; the ticket service writes it with the ticket). */
export type InitialMessage = (
  ticket: TicketRecord,
  message: { body: string; bodyHtml?: string | null; senderEmail: string; senderName: string | null },
) => { message: MessageRecord; insert: Statement };

/** What a ticket is made of; `bodyHtml` (the first message's HTML) comes only from mail: the API's body has none. */
export type NewTicket = CreateTicketInput & { bodyHtml?: string | null };

export class TicketService {
  private readonly em: EntityManager;
  private readonly assignees: AssigneeDirectory;
  private readonly initialMessage: InitialMessage;

  constructor(em: EntityManager, deps: { assignees: AssigneeDirectory; initialMessage: InitialMessage }) {
    this.em = em;
    this.assignees = deps.assignees;
    this.initialMessage = deps.initialMessage;
  }

  /**
   * Creates the ticket and its initial inbound message, with a ticket_created event: one
   * statement, which commits (or fails) as a whole, in the transaction of `em` when it is in one.
   * Returns both, as written (a caller that records more about the message needs not read it back).
   */
  async create(workspaceId: string, input: NewTicket, actor: Actor): Promise<{ ticket: TicketRecord; message: MessageRecord }> {
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
    const first = this.initialMessage(ticket, { body: input.body, bodyHtml: input.bodyHtml ?? null, senderEmail: input.customerEmail, senderName: customerName });
    await writeTogether(this.em, [
      ticketInsert(ticket),
      first.insert,
      eventsInsert([{ workspaceId, type: 'ticket_created', ticketId: ticket.id, payload: { ticket: ticketContext(ticket) }, actor, at: now }]),
    ]);
    return { ticket, message: first.message };
  }

  /** The ticket if it belongs to the workspace; 404 otherwise (malformed ids included). */
  async get(workspaceId: string, ticketId: string): Promise<TicketRecord> {
    return readTicket(this.em, workspaceId, ticketId);
  }

  /**
   * One page of the tickets that pass the filter, in the sort's order (newest first by default,
   * best match first for a search), and the exact number that pass (list.ts says how each is
   * kept index-backed).
   */
  async list(workspaceId: string, opts: { page: number; perPage: number; filter?: TicketFilter; sort?: TicketSort }) {
    return listTickets(this.em, workspaceId, opts.filter ?? {}, opts.sort, { limit: opts.perPage, offset: (opts.page - 1) * opts.perPage });
  }

  /**
   * Applies a change under the ticket's row lock, so concurrent updates serialize. Writes
   * ticket_updated with the fields that really changed (from → to), ticket_closed when the
   * status became closed, and tag_added per new tag. A human assignee must be a current
   * member or admin of the workspace (403).
   */
  async update(workspaceId: string, ticketId: string, change: TicketChange, actor: Actor): Promise<TicketRecord> {
    const [ticket] = await this.updateInTurn(workspaceId, ticketId, [change], actor);
    return ticket;
  }

  /**
   * Applies changes one after the other, each as `update` would (its own events, from the
   * ticket as the change before left it), under one lock and with one write of the ticket:
   * the actions of a run reached at once. Returns the ticket after each change. `at` gives them
   * all one time (a run's batch, whose steps carry it too).
   */
  async updateInTurn(workspaceId: string, ticketId: string, changes: TicketChange[], actor: Actor, opts: { at?: Date } = {}): Promise<TicketRecord[]> {
    for (const { assignedTo } of changes) {
      if (assignedTo !== undefined && assignedTo !== null && !(await this.assignees.isAssignable(workspaceId, assignedTo))) {
        throw notAssignable(workspaceId, assignedTo);
      }
    }
    return inCallersTransaction(this.em, async (em) => {
      let ticket = await readTicket(em, workspaceId, ticketId, { forUpdate: true });
      const tagsBefore = ticket.tags;
      const after: TicketRecord[] = [];
      const events: NewEvent[] = [];
      for (const change of changes) {
        const before = ticketContext(ticket);
        const applied = applyTicketChange(ticket, change, actor);
        ticket = applied.ticket;
        after.push(ticket);
        if (Object.keys(applied.changes).length === 0) continue;
        const now = opts.at ?? new Date();
        ticket.updatedAt = now;
        const context = ticketContext(ticket);
        const base = { workspaceId, ticketId: ticket.id, actor, at: now };
        events.push({ ...base, type: 'ticket_updated', payload: { ticket: context, previous: before, changes: applied.changes } });
        if (applied.changes.status && ticket.status === 'closed') events.push({ ...base, type: 'ticket_closed', payload: { ticket: context } });
        for (const tag of applied.addedTags) events.push({ ...base, type: 'tag_added', payload: { ticket: context, tag } });
      }
      if (events.length > 0) {
        const tagCounts = tagCountsChange(workspaceId, tagsBefore, ticket.tags);
        await writeTogether(em, [ticketUpdate(ticket), eventsInsert(events), ...(tagCounts ? [tagCounts] : [])]);
      }
      return after;
    });
  }
}
