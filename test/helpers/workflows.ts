// Shared vocabulary of the workflows interface tests: the public field sets of docs/contract.md
// and docs/contract.md §1/§4, graph builders, and small API steps that assert their own success.
import { expect } from 'vitest';
import type { ApiResponse, Client } from './app.ts';

export type Json = Record<string, unknown>;

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

// --- graph builders -------------------------------------------------------------------

export const triggerNode = (triggerType: string = 'ticket_created', id = 'trigger', extra: Json = {}): Json => ({
  id,
  type: 'trigger',
  data: { triggerType, ...extra },
});
export const conditionNode = (id: string, data: Json = { field: 'ticket.status', operator: 'equals', value: 'open' }): Json => ({
  id,
  type: 'condition',
  data,
});
export const actionNode = (id: string, data: Json = { actionType: 'add_tag', tag: 'vip' }): Json => ({ id, type: 'action', data });
export const edge = (source: string, target: string, label?: 'true' | 'false'): Json =>
  label === undefined ? { source, target } : { source, target, label };

/**
 * Edges written as paths, separated by commas: 'a > b' is an edge, 'a >true b' and 'a >false b'
 * are the labelled branches of a condition (or of a wait for a reply), and 'a > b > c' chains.
 */
export function paths(spec: string): Json[] {
  return spec.split(',').flatMap((path) => {
    const steps = path.trim().split(/\s+/);
    const found: Json[] = [];
    for (let i = 1; i + 1 < steps.length; i += 2) {
      const label = steps[i].slice(1);
      found.push(edge(steps[i - 1], steps[i + 1], label === '' ? undefined : (label as 'true' | 'false')));
    }
    return found;
  });
}

/** The graph a workflow gets when created without workflowJson (docs/contract.md §4). */
export const defaultGraph = (triggerType: string) => ({
  nodes: [{ id: 'trigger', type: 'trigger', data: { triggerType } }],
  edges: [],
});

/** trigger → one node. */
export const graphWith = (node: Json, triggerType = 'ticket_created'): Json => ({
  nodes: [triggerNode(triggerType), node],
  edges: [edge('trigger', String(node.id))],
});

/**
 * A workflow whose run reaches an action whatever the context, one that needs no ticket (a run
 * without one is accepted): its executions need the engine (pending without one).
 */
export const runnable = (triggerType = 'ticket_created') => ({ triggerType, workflowJson: graphWith(actionNode('pause', { actionType: 'delay', seconds: 60 }), triggerType) });

/** A small valid graph: trigger → condition → (true) add_tag. */
export const simpleGraph = (triggerType = 'ticket_created', tag = 'vip'): Json => ({
  nodes: [triggerNode(triggerType), conditionNode('is-open'), actionNode('tag-it', { actionType: 'add_tag', tag })],
  edges: [edge('trigger', 'is-open'), edge('is-open', 'tag-it', 'true')],
});

// --- API steps ------------------------------------------------------------------------

let counter = 0;
/** A name no other test uses. */
export const uniqueName = (prefix = 'Workflow') => `${prefix} ${++counter} ${Math.random().toString(36).slice(2, 8)}`;

export function expectStatus(res: ApiResponse, status: number): void {
  expect(res.status, JSON.stringify(res.body)?.slice(0, 1000)).toBe(status);
}

/** Creates a workflow (asserting 201) and returns the `workflow` of the response. */
export async function createWorkflow(api: Client, body: Json = {}): Promise<any> {
  const res = await api.post('/api/workflows', { name: uniqueName(), ...body });
  expectStatus(res, 201);
  return res.body.workflow;
}

export async function getWorkflow(api: Client, id: string): Promise<any> {
  const res = await api.get(`/api/workflows/${id}`);
  expectStatus(res, 200);
  return res.body.workflow;
}

export async function patchWorkflow(api: Client, id: string, body: unknown): Promise<any> {
  const res = await api.patch(`/api/workflows/${id}`, body);
  expectStatus(res, 200);
  return res.body.workflow;
}

export async function listWorkflows(api: Client, query = ''): Promise<any[]> {
  const res = await api.get(`/api/workflows${query}`);
  expectStatus(res, 200);
  return res.body.workflows;
}

/** Triggers a workflow manually (asserting 202) and returns the execution. */
export async function triggerWorkflow(api: Client, id: string, body: unknown = {}): Promise<any> {
  const res = await api.post(`/api/workflows/${id}/trigger`, body);
  expectStatus(res, 202);
  return res.body.execution;
}

export async function listExecutions(api: Client, id: string, query = ''): Promise<any[]> {
  const res = await api.get(`/api/workflows/${id}/executions${query}`);
  expectStatus(res, 200);
  return res.body.executions;
}

/** The paths named by a 400's details. */
export const detailPaths = (res: ApiResponse): string[] => (res.body?.error?.details ?? []).map((d: { path: string }) => d.path);
