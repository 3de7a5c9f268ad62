import type { Message } from './entity.ts';

/** The public Message of interface.md: exactly these fields. */
export function presentMessage(m: Message) {
  return {
    id: m.id,
    ticketId: m.ticket,
    direction: m.direction,
    senderEmail: m.senderEmail,
    senderName: m.senderName ?? null,
    body: m.body,
    bodyHtml: m.bodyHtml ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}
