import type { Execution, ExecutionStep } from './entity.ts';

export function presentStep(s: ExecutionStep) {
  return {
    nodeId: s.nodeId,
    status: s.status,
    ...(s.result !== null && s.result !== undefined ? { result: s.result } : {}),
    startedAt: s.startedAt.toISOString(),
    completedAt: s.completedAt ? s.completedAt.toISOString() : null,
    ...(s.error ? { error: s.error } : {}),
  };
}

/** CONTRACT §4: { id, workflowId, workflowVersion, status, triggeredBy, ticketId, startedAt, completedAt, steps, error }. */
export function presentExecution(e: Execution, steps: ExecutionStep[]) {
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
  };
}
export type PublicExecution = ReturnType<typeof presentExecution>;
