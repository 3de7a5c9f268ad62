import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Ticket } from '../tickets/entity.ts';

/**
 * An internal note on a ticket: written by a member for the team, never part of the
 * conversation with the customer (not a message, never mailed, no customer-reply handling).
 */
const NoteSchema = defineEntity({
  name: 'Note',
  tableName: 'notes',
  extends: BaseEntity,
  properties: {
    ticket: () => p.manyToOne(Ticket).mapToPk().deleteRule('cascade'),
    /** The member or admin who wrote it (a user id, as assignees are). */
    authorId: p.string().length(200),
    body: p.text(),
  },
  indexes: [{ name: 'notes_ticket_created_idx', properties: ['ticket', 'createdAt', 'id'] }],
});
export class Note extends NoteSchema.class {}
NoteSchema.setClass(Note);
