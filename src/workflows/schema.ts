import { z } from 'zod';
import { TRIGGER_TYPES } from '../graph/index.ts';
import { EXECUTION_STATUSES } from '../executions/entity.ts';
import { nullableText, oneOf, text } from '../http/validate.ts';

const description = nullableText({ max: 2_000, label: 'description' });
const graphJson = z.custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), {
  error: () => 'workflowJson must be an object with nodes and edges.',
});

export const createWorkflowBody = z.strictObject({
  name: text({ min: 1, max: 200, nonBlank: true, label: 'name' }),
  description: description.optional(),
  triggerType: oneOf(TRIGGER_TYPES, 'triggerType').optional(),
  workflowJson: graphJson.optional(),
});
export type CreateWorkflowInput = z.infer<typeof createWorkflowBody>;

export const updateWorkflowBody = z
  .strictObject({
    name: text({ min: 1, max: 200, nonBlank: true, label: 'name' }).optional(),
    description: description.optional(),
    isActive: z.boolean({ error: () => 'isActive must be true or false.' }).optional(),
    triggerType: oneOf(TRIGGER_TYPES, 'triggerType').optional(),
    workflowJson: graphJson.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'Give at least one of name, description, isActive, triggerType, workflowJson.',
  });
export type UpdateWorkflowInput = z.infer<typeof updateWorkflowBody>;

export const triggerWorkflowBody = z.strictObject({
  ticketId: z.string({ error: () => 'ticketId must be a string.' }).optional(),
  data: z
    .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), {
      error: () => 'data must be a JSON object.',
    })
    .optional(),
});

const once = (label: string) => z.string({ error: () => `${label} must be given once.` });

export const listWorkflowsQuery = z.object({
  active: once('active').pipe(z.enum(['true', 'false'], { error: () => 'active must be true or false.' })).optional(),
  trigger_type: once('trigger_type').pipe(oneOf(TRIGGER_TYPES, 'trigger_type')).optional(),
});

export const listExecutionsQuery = z.object({
  limit: once('limit')
    .regex(/^[0-9]+$/, 'limit must be an integer from 1 to 200.')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 200, 'limit must be an integer from 1 to 200.')
    .default(50),
  status: once('status').pipe(oneOf(EXECUTION_STATUSES, 'status')).optional(),
  before: once('before').optional(),
});
