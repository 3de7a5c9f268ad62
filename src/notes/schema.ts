import { z } from 'zod';
import { text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';

/** POST /api/v1/tickets/:id/notes: an internal note, with the limits of a message body. */
export const addNoteBody = z.strictObject({
  authorId: userId('authorId').meta({ description: 'Who writes it: a current member or admin of the workspace (else 403).' }),
  body: text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }),
});
export type AddNoteInput = z.infer<typeof addNoteBody>;
