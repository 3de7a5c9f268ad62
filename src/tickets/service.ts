import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, notFound } from '../errors.ts';
import { recordEvent, type Actor } from '../events/outbox.ts';
import { isUuid, newId } from '../ids.ts';
import { Message } from '../messages/entity.ts';
import type { WorkspaceService } from '../workspaces/service.ts';
import { Ticket } from './entity.ts';
import { resolutionAfter } from './policy.ts';
import { ticketContext } from './presenter.ts';
import type { CreateTicketInput } from './schema.ts';
import type { ResolutionType, TicketPriority, TicketStatus } from './values.ts';

/** A change to a ticket, from the API or from a workflow action. */
export type TicketChange = {
  status?: TicketStatus;
  priority?: TicketPriority;
  assignedTo?: string;
  resolutionType?: ResolutionType;
  addTags?: string[];
  removeTags?: string[];
};

type FieldChange = { from: unknown; to: unknown };

export class TicketService {
  private readonly em: EntityManager;
  private readonly workspaces: WorkspaceService;

  constructor(em: EntityManager, workspaces: WorkspaceService) {
    this.em = em;
    this.workspaces = workspaces;
  }

  /** Creates the ticket and its initial inbound message, with a ticket_created event, in one transaction. */
  async create(workspaceId: string, input: CreateTicketInput, actor: Actor): Promise<Ticket> {
    return this.em.transactional(async (em) => {
      const now = new Date();
      const customerName = input.customerName?.trim() ? input.customerName : null;
      const ticket = em.create(Ticket, {
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
      });
      em.create(Message, {
        id: newId(),
        ticket: ticket.id,
        seq: 1,
        direction: 'inbound',
        senderEmail: input.customerEmail,
        senderName: customerName,
        body: input.body,
        bodyHtml: null,
        createdAt: now,
      });
      recordEvent(em, { workspaceId, type: 'ticket_created', ticketId: ticket.id, payload: { ticket: ticketContext(ticket) }, actor, at: now });
      return ticket;
    });
  }

  /** The ticket if it belongs to the workspace; 404 otherwise (malformed ids included). */
  async get(workspaceId: string, ticketId: string): Promise<Ticket> {
    const ticket = isUuid(ticketId) ? await this.em.findOne(Ticket, { id: ticketId, workspace: workspaceId }) : null;
    if (!ticket) throw notFound('Ticket');
    return ticket;
  }

  /** One page (newest first) plus the total, in two queries. */
  async list(workspaceId: string, opts: { page: number; perPage: number; status?: TicketStatus }) {
    const where = { workspace: workspaceId, ...(opts.status ? { status: opts.status } : {}) };
    const [tickets, total] = await Promise.all([
      this.em.find(Ticket, where, {
        orderBy: { createdAt: 'desc', id: 'desc' },
        limit: opts.perPage,
        offset: (opts.page - 1) * opts.perPage,
      }),
      this.em.count(Ticket, where),
    ]);
    return { tickets, total };
  }

  /**
   * Applies a change under the ticket's row lock, so concurrent updates serialize. Writes
   * ticket_updated with the fields that really changed (from → to), ticket_closed when the
   * status became closed, and tag_added per new tag. A human assignee must be a current
   * member or admin of the workspace (403).
   */
  async update(workspaceId: string, ticketId: string, change: TicketChange, actor: Actor): Promise<Ticket> {
    if (change.assignedTo !== undefined && !(await this.workspaces.isAssignable(workspaceId, change.assignedTo))) {
      throw forbidden(`"${change.assignedTo}" is not a current member or admin of this workspace.`);
    }
    return this.em.transactional(async (em) => {
      const ticket = isUuid(ticketId)
        ? await em.findOne(Ticket, { id: ticketId, workspace: workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE })
        : null;
      if (!ticket) throw notFound('Ticket');
      const before = ticketContext(ticket);
      const changes: Record<string, FieldChange> = {};
      const set = <K extends 'status' | 'priority' | 'assignedTo' | 'resolutionType' | 'tags'>(field: K, value: Ticket[K]) => {
        const from = ticket[field];
        if (JSON.stringify(from) === JSON.stringify(value)) return;
        changes[field] = { from: field === 'tags' ? [...(from as string[])] : from, to: value };
        ticket[field] = value;
      };

      if (change.priority !== undefined) set('priority', change.priority);
      if (change.assignedTo !== undefined) set('assignedTo', change.assignedTo);
      if (change.status !== undefined) set('status', change.status);
      if (change.resolutionType !== undefined) set('resolutionType', change.resolutionType);
      else if (changes.status) {
        set('resolutionType', resolutionAfter({ status: ticket.status, current: ticket.resolutionType ?? null, assignedTo: ticket.assignedTo ?? null, actor }));
      }
      const added: string[] = [];
      if (change.addTags?.length || change.removeTags?.length) {
        const tags = ticket.tags.filter((t) => !change.removeTags?.includes(t));
        for (const tag of change.addTags ?? []) {
          if (!tags.includes(tag)) {
            tags.push(tag);
            if (!ticket.tags.includes(tag)) added.push(tag);
          }
        }
        set('tags', tags);
      }

      if (Object.keys(changes).length === 0) return ticket;
      const now = new Date();
      ticket.updatedAt = now;
      const after = ticketContext(ticket);
      const base = { workspaceId, ticketId: ticket.id, actor, at: now };
      recordEvent(em, { ...base, type: 'ticket_updated', payload: { ticket: after, previous: before, changes } });
      if (changes.status && ticket.status === 'closed') recordEvent(em, { ...base, type: 'ticket_closed', payload: { ticket: after } });
      for (const tag of added) recordEvent(em, { ...base, type: 'tag_added', payload: { ticket: after, tag } });
      return ticket;
    });
  }
}
