import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, createdAt } from '../common/base-entity.ts';
import { Workspace } from '../workspaces/entity.ts';
import { TRIGGER_TYPES, type WorkflowGraph } from '../graph/index.ts';

const WorkflowSchema = defineEntity({
  name: 'Workflow',
  tableName: 'workflows',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    name: p.string().length(200),
    description: p.text().nullable(),
    triggerType: p.enum(TRIGGER_TYPES),
    isActive: p.boolean().default(false),
    version: p.integer().default(1),
    /** The graph of the current version (also kept in workflow_versions). */
    graph: p.json<WorkflowGraph>(),
    /** HMAC secret of a webhook-triggered workflow. */
    webhookSecret: p.string().length(64).nullable(),
    updatedAt: p.datetime(3).onCreate((w: { createdAt?: Date }) => w.createdAt ?? new Date()),
    /** Executions created so far and when the last one was, kept with each creation (no count over executions per read). */
    executionCount: p.integer().default(0),
    lastTriggeredAt: p.datetime(3).nullable(),
    /** Deleted workflows are gone from the API; rows stay so running executions can finish their bookkeeping. */
    deletedAt: p.datetime(3).nullable(),
  },
  indexes: [
    {
      name: 'workflows_workspace_trigger_idx',
      expression: 'create index "workflows_workspace_trigger_idx" on "workflows" ("workspace_id", "trigger_type") where "deleted_at" is null',
    },
  ],
});
export class Workflow extends WorkflowSchema.class {}
WorkflowSchema.setClass(Workflow);

/** Every version of a workflow's graph: an execution runs the version current when it was triggered. */
const WorkflowVersionSchema = defineEntity({
  name: 'WorkflowVersion',
  tableName: 'workflow_versions',
  properties: {
    workflow: () => p.manyToOne(Workflow).mapToPk().primary().deleteRule('cascade'),
    version: p.integer().primary(),
    triggerType: p.enum(TRIGGER_TYPES),
    graph: p.json<WorkflowGraph>(),
    createdAt: createdAt(),
  },
});
export class WorkflowVersion extends WorkflowVersionSchema.class {}
WorkflowVersionSchema.setClass(WorkflowVersion);
