import type { Workflow } from './entity.ts';
import type { WorkflowStats } from './service.ts';

export const webhookPath = (w: Workflow) => `/api/workflows/${w.id}/webhook`;

/** The create response: { id, name, description, triggerType, isActive, version, createdAt }. */
export function presentCreatedWorkflow(w: Workflow) {
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

/** GET and PATCH: the full configuration, with the webhook address and secret of a webhook workflow. */
export function presentWorkflow(w: Workflow) {
  return {
    ...presentCreatedWorkflow(w),
    workflowJson: w.graph,
    updatedAt: w.updatedAt.toISOString(),
    ...(w.triggerType === 'webhook' && w.webhookSecret ? { webhook: { path: webhookPath(w), secret: w.webhookSecret } } : {}),
  };
}

export function presentWorkflowListItem(w: Workflow, stats: WorkflowStats) {
  return {
    ...presentCreatedWorkflow(w),
    executionCount: stats.executionCount,
    lastTriggeredAt: stats.lastTriggeredAt ? stats.lastTriggeredAt.toISOString() : null,
    updatedAt: w.updatedAt.toISOString(),
  };
}
