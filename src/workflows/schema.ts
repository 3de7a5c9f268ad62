import { z } from 'zod';
import { NODE_TYPES, TRIGGER_TYPES } from '../graph/index.ts';
import { jsonRecord, nullableText, oneOf, queryParam, text } from '../http/validate.ts';

const description = nullableText({ max: 2_000, label: 'description' });
/**
 * The outline of a graph as the API returns it. Requests take any JSON object here and the
 * graph validation of src/graph says what is wrong, node by node (docs/contract.md §5).
 */
export const workflowGraph = z
  .looseObject({
    nodes: z.array(z.looseObject({ id: z.string(), type: z.enum(NODE_TYPES), data: z.record(z.string(), z.unknown()) })),
    edges: z.array(z.looseObject({ source: z.string(), target: z.string(), label: z.enum(['true', 'false']).optional() })),
  })
  .meta({ id: 'WorkflowGraph', description: 'Nodes (one trigger, conditions, actions) and edges; the language is described in docs/automations.md.' });

const graphJson = jsonRecord('workflowJson must be an object with nodes and edges.').meta({
  type: 'object',
  description: 'The graph `{ nodes, edges }` (see WorkflowGraph), validated node by node when saved.',
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

export const listWorkflowsQuery = z.object({
  active: queryParam('active').pipe(z.enum(['true', 'false'], { error: () => 'active must be true or false.' })).optional(),
  trigger_type: queryParam('trigger_type').pipe(oneOf(TRIGGER_TYPES, 'trigger_type')).optional(),
});
