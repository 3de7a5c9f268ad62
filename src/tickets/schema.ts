import { z } from 'zod';
import { email, nullableText, oneOf, text } from '../http/validate.ts';
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

/**
 * A human user id: 1-200 code points, not blank, no surrounding whitespace or control
 * characters. `ai` is the AI agent.
 */
export const assigneeId = text({ min: 1, max: 200, nonBlank: true, label: 'assignedTo' }).check((ctx) => {
  const s = ctx.value;
  if (s.trim() === '') return;
  if (s !== s.trim()) ctx.issues.push({ code: 'custom', input: s, message: 'assignedTo must not start or end with whitespace.' });
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u001f\u007f]/.test(s)) ctx.issues.push({ code: 'custom', input: s, message: 'assignedTo must not contain control characters.' });
});

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

const positiveInt = (label: string, max: number) =>
  z
    .string({ error: () => `${label} must be given once, as a positive integer.` })
    .regex(/^[0-9]+$/, `${label} must be a positive integer.`)
    .transform(Number)
    .refine((n) => n >= 1, `${label} must be a positive integer.`)
    .refine((n) => n <= max, `${label} must be at most ${max}.`);

export const listTicketsQuery = z.object({
  page: positiveInt('page', 2_147_483_647).default(1),
  per_page: positiveInt('per_page', 100).default(20),
  status: z.string({ error: () => 'status must be given once.' }).pipe(oneOf(STATUSES, 'status')).optional(),
  workspace_id: z.string({ error: () => 'workspace_id must be given once.' }).optional(),
});
