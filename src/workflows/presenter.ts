import { z } from 'zod';
import { TRIGGER_TYPES, type WorkflowGraph } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import type { Workflow } from './entity.ts';
import { workflowGraph } from './schema.ts';

export const webhookPath = (w: Workflow) => `/api/workflows/${w.id}/webhook`;

/** The create response: { id, name, description, triggerType, isActive, version, createdAt }. */
export const createdWorkflow = z
  .strictObject({
    id: uuid(),
    name: z.string(),
    description: z.string().nullable(),
    triggerType: z.enum(TRIGGER_TYPES),
    isActive: z.boolean(),
    version: z.int().min(1).meta({ description: 'Goes up when the graph or the trigger type changes.' }),
    createdAt: timestamp(),
  })
  .meta({ id: 'CreatedWorkflow' });

/** GET and PATCH: the full configuration, with the webhook address and secret of a webhook workflow. */
export const publicWorkflow = createdWorkflow
  .extend({
    workflowJson: workflowGraph,
    updatedAt: timestamp(),
    webhook: z
      .strictObject({ path: z.string(), secret: z.string() })
      .optional()
      .meta({ description: 'Only on a webhook workflow: where to send signed requests, and the signing secret.' }),
  })
  .meta({ id: 'Workflow' });

export const workflowListItem = createdWorkflow
  .extend({
    executionCount: z.int().min(0),
    lastTriggeredAt: timestamp().nullable(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'WorkflowListItem' });

export function presentCreatedWorkflow(w: Workflow): z.output<typeof createdWorkflow> {
  return {
    id: w.id,
    name: w.name,
    description: w.description ?? null,
    triggerType: w.triggerType,
    isActive: w.isActive,
    version: w.version,
    createdAt: w.createdAt.toISOString(),
  };
}

/** The graph keeps its own type (src/graph); the API tests check it against the schema's outline. */
type PublicWorkflow = Omit<z.output<typeof publicWorkflow>, 'workflowJson'> & { workflowJson: WorkflowGraph };

export function presentWorkflow(w: Workflow): PublicWorkflow {
  return {
    ...presentCreatedWorkflow(w),
    workflowJson: w.graph,
    updatedAt: w.updatedAt.toISOString(),
    ...(w.triggerType === 'webhook' && w.webhookSecret ? { webhook: { path: webhookPath(w), secret: w.webhookSecret } } : {}),
  };
}

export function presentWorkflowListItem(w: Workflow): z.output<typeof workflowListItem> {
  return {
    ...presentCreatedWorkflow(w),
    executionCount: w.executionCount,
    lastTriggeredAt: w.lastTriggeredAt ? w.lastTriggeredAt.toISOString() : null,
    updatedAt: w.updatedAt.toISOString(),
  };
}
