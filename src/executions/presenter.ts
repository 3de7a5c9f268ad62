import { z } from 'zod';
import { TRIGGER_TYPES } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import { EXECUTION_STATUSES, STEP_STATUSES, type Execution, type ExecutionStep } from './entity.ts';

export const publicStep = z
  .strictObject({
    nodeId: z.string(),
    status: z.enum(STEP_STATUSES).meta({
      description:
        '`passed` (trigger, condition), `completed` or `failed` (action), `waiting` (a delay or wait_for_reply under way), `running`, `cancelled` (a wait cut short: the execution was cancelled or failed on another branch), `not_reached` (the execution ended before it came to this node; its times are when it ended). Nodes on branches not taken are not listed.',
    }),
    result: z.unknown().optional().meta({
      description: 'Only when the node has one: true/false for a condition or wait_for_reply, { messageId } for send_reply, { status, body, truncated } for http_request.',
    }),
    startedAt: timestamp(),
    completedAt: timestamp().nullable().meta({ description: 'Null while waiting.' }),
    error: z.string().optional().meta({ description: 'Only on a failed or cancelled step: the reason.' }),
    until: timestamp().optional().meta({ description: 'Only on a delay or wait_for_reply: when the wait ends (wait_for_reply: at the latest), fixed when it begins.' }),
  })
  .meta({ id: 'ExecutionStep' });

/** docs/contract.md §4: { id, workflowId, workflowVersion, status, triggeredBy, ticketId, startedAt, completedAt, steps, error, runId }. */
export const publicExecution = z
  .strictObject({
    id: uuid(),
    workflowId: uuid(),
    workflowVersion: z.int().min(1),
    status: z.enum(EXECUTION_STATUSES),
    triggeredBy: z.enum(TRIGGER_TYPES),
    ticketId: uuid().nullable(),
    startedAt: timestamp(),
    completedAt: timestamp().nullable(),
    steps: z.array(publicStep).meta({ description: 'The nodes run so far, in the order they started.' }),
    error: z.string().nullable(),
    runId: z.string().nullable().meta({
      description: 'The id of its run in Temporal (`workflow-<workflow id>/…`, the workflow id the Temporal Web UI shows); null while none was started, and for an execution that ended before any action, which needs no run.',
    }),
  })
  .meta({ id: 'Execution' });
export type PublicExecution = z.output<typeof publicExecution>;

/** The answer of every route that starts, shows or cancels one execution (also …/trigger and …/webhook). */
export const executionEnvelope = z.strictObject({ execution: publicExecution });

export function presentStep(s: ExecutionStep): z.output<typeof publicStep> {
  return {
    nodeId: s.nodeId,
    status: s.status,
    ...(s.result !== null && s.result !== undefined ? { result: s.result } : {}),
    startedAt: s.startedAt.toISOString(),
    completedAt: s.completedAt ? s.completedAt.toISOString() : null,
    ...(s.error ? { error: s.error } : {}),
    ...(s.until ? { until: s.until.toISOString() } : {}),
  };
}

export function presentExecution(e: Execution, steps: ExecutionStep[]): PublicExecution {
  return {
    id: e.id,
    workflowId: e.workflow,
    workflowVersion: e.workflowVersion,
    status: e.status,
    triggeredBy: e.triggeredBy,
    ticketId: e.ticketId ?? null,
    startedAt: e.startedAt.toISOString(),
    completedAt: e.completedAt ? e.completedAt.toISOString() : null,
    steps: steps.map(presentStep),
    error: e.error ?? null,
    runId: e.dispatchedAt ? e.temporalWorkflowId : null,
  };
}
