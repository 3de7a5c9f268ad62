import { z } from 'zod';
import { email, nullableText, oneOf, queryInteger, queryList, queryParam, text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';
import { TICKET_SORTS } from './list.ts';
import { normalTag, PRIORITIES, SOURCES, STATUSES, TAG_MAX_LENGTH } from './values.ts';

const optionalName = (label: string) => nullableText({ max: 200, label }).optional();

export const createTicketBody = z.strictObject({
  subject: text({ min: 1, max: 500, nonBlank: true, label: 'subject' }),
  customerEmail: email('customerEmail'),
  customerName: optionalName('customerName'),
  body: text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }),
  source: oneOf(SOURCES, 'source').optional(),
  language: z
    .string({ error: () => 'language must be a string.' })
    .regex(/^[a-z]{2,3}$/, 'language must be a two- or three-letter lowercase code such as "en" or "deu".')
    .optional(),
});
export type CreateTicketInput = z.infer<typeof createTicketBody>;

/** assignedTo: a user id (a current member or admin, checked by the service) or `ai`, the AI agent. */
export const assigneeId = userId('assignedTo');

export const updateTicketBody = z
  .strictObject({
    status: oneOf(STATUSES, 'status').optional(),
    priority: oneOf(PRIORITIES, 'priority').optional(),
    assignedTo: assigneeId.optional(),
  })
  .refine((b) => b.status !== undefined || b.priority !== undefined || b.assignedTo !== undefined, {
    message: 'Give at least one of status, priority, assignedTo.',
  });
export type UpdateTicketInput = z.infer<typeof updateTicketBody>;

/** A tag as given in a body or a path: trimmed, then 1-100 characters, not blank (the rule of the add_tag action). */
export function tagName(label: string) {
  return z
    .string({ error: (i) => (i.input === undefined ? `${label} is required.` : `${label} must be a string.`) })
    .transform((given, ctx) => {
      const tag = normalTag(given);
      if (tag === null) ctx.issues.push({ code: 'custom', input: given, message: `${label} must be 1-${TAG_MAX_LENGTH} characters once trimmed, and not blank.` });
      return tag ?? z.NEVER;
    })
    .meta({ description: `Trimmed of surrounding whitespace, then 1-${TAG_MAX_LENGTH} characters, not blank.` });
}

export const addTagBody = z.strictObject({ tag: tagName('tag') });
export const tagParam = z.object({ tag: tagName('tag') });

export const listTicketsQuery = z.strictObject({
  page: queryInteger('page', { min: 1, max: 2_147_483_647 }).default(1),
  per_page: queryInteger('per_page', { min: 1, max: 100 }).default(20),
  status: queryParam('status').pipe(oneOf(STATUSES, 'status')).optional(),
  workspace_id: queryParam('workspace_id').optional().meta({ description: 'Optional; must be the API key’s workspace (else 403).' }),
  q: queryParam('q')
    .pipe(text({ min: 1, max: 200, nonBlank: true, label: 'q' }))
    .optional()
    .meta({
      description:
        'Full-text search of subjects and messages: words (all of them), "a phrase", `or`, `-word`. Whole words in any letter case, without stemming. Without `sort`, the best match first.',
    }),
  customer_email: queryList('customer_email', email('customer_email'))
    .optional()
    .meta({ description: 'Repeatable: the ticket’s customer is one of these (any letter case).' }),
  assigned_to: queryList('assigned_to', userId('assigned_to'))
    .optional()
    .meta({ description: 'Repeatable: assigned to one of these: a user id, `ai` (the AI agent) or `none` (no one).' }),
  priority: queryList('priority', oneOf(PRIORITIES, 'priority'), { values: PRIORITIES }).optional().meta({ description: 'Repeatable: one of these priorities.' }),
  tag: queryList('tag', tagName('tag')).optional().meta({ description: 'Repeatable: the ticket has every one of these tags.' }),
  source: queryList('source', oneOf(SOURCES, 'source'), { values: SOURCES }).optional().meta({ description: 'Repeatable: one of these sources.' }),
  sort: queryParam('sort')
    .pipe(oneOf(TICKET_SORTS, 'sort'))
    .optional()
    .meta({ description: '`-created_at` (the default: newest first), `created_at`, `-updated_at` or `updated_at`; ties by id. With `q` and no sort: best match first.' }),
});
export type ListTicketsQuery = z.output<typeof listTicketsQuery>;
