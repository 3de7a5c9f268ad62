import { z } from 'zod';
import { email, nullableText, oneOf, queryInteger, queryParam, text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';
import { PRIORITIES, SOURCES, STATUSES } from './values.ts';

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

export const listTicketsQuery = z.object({
  page: queryInteger('page', { min: 1, max: 2_147_483_647 }).default(1),
  per_page: queryInteger('per_page', { min: 1, max: 100 }).default(20),
  status: queryParam('status').pipe(oneOf(STATUSES, 'status')).optional(),
  workspace_id: queryParam('workspace_id').optional().meta({ description: 'Optional; must be the API key’s workspace (else 403).' }),
});
