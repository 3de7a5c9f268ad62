import { defineEntity, p } from '@mikro-orm/core';
import { countTriggers } from '../common/count-triggers.ts';
import { primaryId } from '../common/base-entity.ts';
import { Workspace } from '../workspaces/entity.ts';
import { Workflow } from '../workflows/entity.ts';
import { TRIGGER_TYPES } from '../graph/index.ts';

export const EXECUTION_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const FINISHED_STATUSES: ReadonlySet<ExecutionStatus> = new Set(['completed', 'failed', 'cancelled']);

const ExecutionSchema = defineEntity({
  name: 'Execution',
  tableName: 'executions',
  properties: {
    id: primaryId(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    workflow: () => p.manyToOne(Workflow).mapToPk().deleteRule('cascade'),
    workflowVersion: p.integer(),
    status: p.enum(EXECUTION_STATUSES),
    triggeredBy: p.enum(TRIGGER_TYPES),
    ticketId: p.uuid().nullable(),
    /** The outbox event that started it (event triggers); at most one execution per (event, workflow). */
    eventId: p.uuid().nullable(),
    /** What conditions and templates see: ticket, message, changes, tag, data. */
    context: p.json<Record<string, unknown>>(),
    /** Workflow ids of the chain of automations that led here, this one last (loop guard). */
    chain: p.array().default([]),
    /** Id of the Temporal workflow that runs it: `workflow-<workflow id>/<trigger>-<event or execution id>`. */
    temporalWorkflowId: p.string().length(300).fieldName('run_id'),
    /** When the Temporal workflow was started; null while it still has to be (engine down). */
    dispatchedAt: p.datetime(3).nullable(),
    startedAt: p.datetime(3),
    completedAt: p.datetime(3).nullable(),
    error: p.text().nullable(),
  },
  uniques: [{ name: 'executions_event_workflow_unique', properties: ['eventId', 'workflow'] }],
  // Keep execution_counts (src/executions/counts.ts).
  triggers: countTriggers('executions', 'deskflow_count_executions'),
  indexes: [
    {
      name: 'executions_workflow_started_idx',
      expression: 'create index "executions_workflow_started_idx" on "executions" ("workflow_id", "started_at" desc, "id" desc)',
    },
    {
      // A ticket's runs of every workflow, newest first (GET /api/v1/tickets/:id/executions).
      name: 'executions_ticket_started_idx',
      expression: 'create index "executions_ticket_started_idx" on "executions" ("ticket_id", "started_at" desc, "id" desc) where "ticket_id" is not null',
    },
    {
      name: 'executions_open_ticket_idx',
      expression: 'create index "executions_open_ticket_idx" on "executions" ("ticket_id") where "status" in (\'pending\', \'running\')',
    },
    {
      name: 'executions_undispatched_idx',
      expression: 'create index "executions_undispatched_idx" on "executions" ("started_at") where "dispatched_at" is null and "status" = \'pending\'',
    },
  ],
});
export class Execution extends ExecutionSchema.class {}
ExecutionSchema.setClass(Execution);

/**
 * `cancelled`: a wait cut short (the execution was cancelled, or failed on another branch);
 * `not_reached`: a node the run never came to because it ended first.
 */
export const STEP_STATUSES = ['passed', 'completed', 'failed', 'waiting', 'running', 'cancelled', 'not_reached'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

const ExecutionStepSchema = defineEntity({
  name: 'ExecutionStep',
  tableName: 'execution_steps',
  properties: {
    execution: () => p.manyToOne(Execution).mapToPk().primary().deleteRule('cascade'),
    nodeId: p.string().length(100).primary(),
    /** Position in the run's walk: steps started at the same instant keep the order they were visited in. */
    seq: p.integer().nullable(),
    status: p.enum(STEP_STATUSES),
    result: p.json<unknown>().nullable(),
    startedAt: p.datetime(3),
    completedAt: p.datetime(3).nullable(),
    error: p.text().nullable(),
    /** Of a delay or wait_for_reply: when the wait ends (at the latest, for wait_for_reply), fixed when it begins. */
    until: p.datetime(3).nullable(),
  },
});
export class ExecutionStep extends ExecutionStepSchema.class {}
ExecutionStepSchema.setClass(ExecutionStep);
