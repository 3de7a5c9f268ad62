import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import { DIRECTIONS } from './entity.ts';
import type { MessageRecord } from './store.ts';

/** The public Message of docs/contract.md: exactly these fields. */
export const publicMessage = z
  .strictObject({
    id: uuid(),
    ticketId: uuid(),
    direction: z.enum(DIRECTIONS),
    senderEmail: z.string(),
    senderName: z.string().nullable(),
    body: z.string(),
    bodyHtml: z.string().nullable(),
    createdAt: timestamp(),
  })
  .meta({ id: 'Message' });

export function presentMessage(m: MessageRecord): z.output<typeof publicMessage> {
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
