import type { TicketRecord } from './store.ts';

/**
 * What workflow conditions and templates see as `ticket.*`, and what events carry: the
 * ticket's public fields plus its language (docs/automations.md, "Context"). Listed here on
 * purpose, apart from the response presenter: a new response field must not silently change
 * what automations see, nor a new context field what clients receive.
 */
export function ticketContext(t: TicketRecord) {
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
    language: t.language ?? null,
  };
}
export type TicketContext = ReturnType<typeof ticketContext>;
