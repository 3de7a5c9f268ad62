import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';
import type { Note } from './entity.ts';

/** The public Note: exactly these fields. */
export const publicNote = z
  .strictObject({
    id: uuid(),
    ticketId: uuid(),
    authorId: z.string().meta({ description: 'The member or admin who wrote it.' }),
    body: z.string(),
    createdAt: timestamp(),
  })
  .meta({ id: 'Note' });
export type PublicNote = z.output<typeof publicNote>;

export type NoteRecord = Pick<Note, 'id' | 'ticket' | 'authorId' | 'body' | 'createdAt'>;

export function presentNote(n: NoteRecord): PublicNote {
  return { id: n.id, ticketId: n.ticket, authorId: n.authorId, body: n.body, createdAt: n.createdAt.toISOString() };
}
