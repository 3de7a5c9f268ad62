import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { writeTogether } from '../common/sql.ts';
import { eventsInsert } from '../events/outbox.ts';
import { newTimeOrderedId } from '../ids.ts';
import { notAssignable } from '../tickets/assignees.ts';
import { ticketContext } from '../tickets/context.ts';
import type { TicketRecord } from '../tickets/store.ts';
import { Member } from '../workspaces/entity.ts';
import { Note } from './entity.ts';
import { presentNote, type NoteRecord } from './presenter.ts';
import type { AddNoteInput } from './schema.ts';

/**
 * Internal notes: what members write on a ticket for each other. A note is not a message: it
 * is not in the message list, never mailed, changes nothing of the ticket (not even its
 * updatedAt) and starts no customer-reply handling. Its `note_added` event, which no workflow
 * listens to, lets the live feed follow it.
 */
export class NoteService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * Writes a note on the ticket (as the caller read it) with its note_added event, in one
   * statement. The author must be a current member or admin of the workspace (403).
   */
  async add(ticket: TicketRecord, input: AddNoteInput, actor: Actor): Promise<NoteRecord> {
    const workspaceId = ticket.workspace;
    if ((await this.em.count(Member, { workspace: workspaceId, userId: input.authorId })) === 0) throw notAssignable(workspaceId, input.authorId);
    const now = new Date();
    const note: NoteRecord = { id: newTimeOrderedId(now.getTime()), ticket: ticket.id, authorId: input.authorId, body: input.body, createdAt: now };
    await writeTogether(this.em, [
      {
        text: 'insert into "notes" ("id", "ticket_id", "author_id", "body", "created_at") values ($1, $2, $3, $4, $5)',
        parameters: [note.id, note.ticket, note.authorId, note.body, note.createdAt],
      },
      eventsInsert([{ workspaceId, type: 'note_added', ticketId: ticket.id, payload: { ticket: ticketContext(ticket), note: presentNote(note) }, actor, at: now }]),
    ]);
    return note;
  }

  /** The ticket's notes, oldest first. */
  async list(ticketId: string): Promise<NoteRecord[]> {
    return this.em.find(Note, { ticket: ticketId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }
}
