// Shared vocabulary of the workflows interface tests: the public field sets of docs/contract.md
// and docs/contract.md §1/§4 (graphs are in graphs.ts, the API steps in api.ts).
import type { ApiResponse } from './app.ts';

/** The trigger types of docs/contract.md, in its order (written out, not imported from src/). */
export const TRIGGER_TYPES = [
  'ticket_created',
  'ticket_updated',
  'ticket_closed',
  'message_received',
  'tag_added',
  'manual',
  'scheduled',
  'webhook',
  'sla_warning',
  'sla_breached',
] as const;

/** The exact key sets of docs/contract.md §1 and §4, sorted. */
export const CREATED_WORKFLOW_FIELDS = ['createdAt', 'description', 'id', 'isActive', 'name', 'triggerType', 'version'];
export const WORKFLOW_FIELDS = ['createdAt', 'description', 'id', 'isActive', 'name', 'triggerType', 'updatedAt', 'version', 'workflowJson'];
export const WEBHOOK_WORKFLOW_FIELDS = [...WORKFLOW_FIELDS, 'webhook'].sort();
export const WORKFLOW_LIST_ITEM_FIELDS = [
  'createdAt',
  'description',
  'executionCount',
  'id',
  'isActive',
  'lastTriggeredAt',
  'name',
  'triggerType',
  'updatedAt',
  'version',
];
export const EXECUTION_FIELDS = ['completedAt', 'error', 'id', 'runId', 'startedAt', 'status', 'steps', 'ticketId', 'triggeredBy', 'workflowId', 'workflowVersion'];

/** A well-formed UUID that names nothing. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The paths named by a 400's details. */
export const detailPaths = (res: ApiResponse): string[] => (res.body?.error?.details ?? []).map((d: { path: string }) => d.path);
