import type { Ticket } from './entity.ts';

/** The public Ticket of interface.md: exactly these fields, nothing internal. */
export function presentTicket(t: Ticket) {
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
export type PublicTicket = ReturnType<typeof presentTicket>;

/** The creation response carries only these eight fields. */
export function presentCreatedTicket(t: Ticket) {
  return {
    id: t.id,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    customerEmail: t.customerEmail,
    customerName: t.customerName ?? null,
    source: t.source,
    createdAt: t.createdAt.toISOString(),
  };
}

/** What workflow conditions and templates see as `ticket.*`: the public ticket plus its language. */
export function ticketContext(t: Ticket) {
  return { ...presentTicket(t), language: t.language ?? null };
}
