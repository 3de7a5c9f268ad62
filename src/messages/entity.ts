import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Ticket } from '../tickets/entity.ts';

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

const MessageSchema = defineEntity({
  name: 'Message',
  tableName: 'messages',
  extends: BaseEntity,
  properties: {
    ticket: () => p.manyToOne(Ticket).mapToPk().deleteRule('cascade'),
    /** Position within the ticket, handed out under the ticket's row lock. */
    seq: p.integer(),
    direction: p.enum(DIRECTIONS),
    senderEmail: p.string().length(320),
    senderName: p.string().length(200).nullable(),
    body: p.text(),
    bodyHtml: p.text().nullable(),
    /** `<execution id>:<node id>` for replies sent by a workflow action: a retried action never sends twice. */
    idempotencyKey: p.string().length(200).nullable().unique(),
  },
  uniques: [{ name: 'messages_ticket_seq_unique', properties: ['ticket', 'seq'] }],
});
export class Message extends MessageSchema.class {}
MessageSchema.setClass(Message);
