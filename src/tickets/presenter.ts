import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import type { TicketRecord } from './store.ts';
import { PRIORITIES, RESOLUTION_TYPES, SOURCES, STATUSES } from './values.ts';

/** The public Ticket of docs/contract.md: exactly these fields, nothing internal. */
export const publicTicket = z
  .strictObject({
    id: uuid(),
    subject: z.string(),
    status: z.enum(STATUSES),
    priority: z.enum(PRIORITIES),
    customerEmail: z.string(),
    customerName: z.string().nullable(),
    source: z.enum(SOURCES),
    assignedTo: z.string().nullable().meta({ description: 'A member’s user id, or `ai` for the AI agent.' }),
    resolutionType: z.enum(RESOLUTION_TYPES).nullable(),
    tags: z.array(z.string()).meta({ description: 'In the order they were added; set by workflow actions only.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Ticket' });
export type PublicTicket = z.output<typeof publicTicket>;

/** The creation response carries only these eight fields. */
export const createdTicket = publicTicket
  .pick({ id: true, subject: true, status: true, priority: true, customerEmail: true, customerName: true, source: true, createdAt: true })
  .meta({ id: 'CreatedTicket' });

export function presentTicket(t: TicketRecord): PublicTicket {
  return {
    id: t.id,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    customerEmail: t.customerEmail,
    customerName: t.customerName ?? null,
    source: t.source,
    assignedTo: t.assignedTo ?? null,
    resolutionType: t.resolutionType ?? null,
    tags: [...(t.tags ?? [])],
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/** The fields of the creation response, taken from the public ticket. */
export function presentCreatedTicket(t: TicketRecord): z.output<typeof createdTicket> {
  const { id, subject, status, priority, customerEmail, customerName, source, createdAt } = presentTicket(t);
  return { id, subject, status, priority, customerEmail, customerName, source, createdAt };
}
