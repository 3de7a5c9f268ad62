// The API steps of the tests and the bench: create a ticket or a workflow, read them back, run a
// workflow, wait for its executions. Each step asserts its own success, so a test reads as what
// it does. They take any client with the verbs they use: the tests' (client() in app.ts) or the
// bench's keep-alive one.
import { expect } from 'vitest';
import { eventually } from './poll.ts';
import { paths, triggerNode, type Json } from './graphs.ts';

/** An answer of the API, as the steps read it. */
export type Answer = { status: number; body: any };
/** What the steps need of a client. */
export type Caller = {
  get(path: string): Promise<Answer>;
  post(path: string, body?: unknown): Promise<Answer>;
  patch(path: string, body?: unknown): Promise<Answer>;
};

/** Asserts the status of an answer, its body in the message (written out only when it fails: the bench's loops call this too). */
export function expectStatus(res: Answer, status: number): void {
  if (res.status !== status) expect(res.status, JSON.stringify(res.body)?.slice(0, 1000)).toBe(status);
}

let counter = 0;
/** A name no other test uses. */
export const uniqueName = (prefix = 'Workflow') => `${prefix} ${++counter} ${Math.random().toString(36).slice(2, 8)}`;

// --- tickets --------------------------------------------------------------------------

export const newTicket = (overrides: Record<string, unknown> = {}) => ({
  subject: 'Printer is on fire',
  customerEmail: 'customer@example.com',
  customerName: 'Casey Customer',
  body: 'It started smoking this morning.',
  ...overrides,
});

/** Creates a ticket through the API and returns the creation response's data. */
export async function createTicket(api: Pick<Caller, 'post'>, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/api/v1/tickets', newTicket(overrides));
  expectStatus(res, 201);
  return res.body.data;
}

/** Creates a ticket through the API; returns its id. */
export async function openTicket(api: Pick<Caller, 'post'>, overrides: Record<string, unknown> = {}): Promise<string> {
  return (await createTicket(api, overrides)).id;
}

/** A ticket as GET /api/v1/tickets/:id shows it. */
export async function getTicket(api: Caller, id: string): Promise<any> {
  const res = await api.get(`/api/v1/tickets/${id}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** Moves a ticket to `status` (and asserts that it worked). */
export async function setStatus(api: Caller, id: string, status: string): Promise<any> {
  const res = await api.patch(`/api/v1/tickets/${id}`, { status });
  expectStatus(res, 200);
  return res.body.data;
}

/** Every message of a ticket (up to 200), oldest first, with the list's total. */
export async function allMessages(api: Caller, id: string): Promise<{ data: any[]; total: number; truncated: boolean }> {
  const res = await api.get(`/api/v1/tickets/${id}/messages?limit=200`);
  expectStatus(res, 200);
  return res.body;
}

/** Every message of a ticket, oldest first. */
export async function readMessages(api: Caller, id: string): Promise<any[]> {
  return (await allMessages(api, id)).data;
}

// --- workflows ------------------------------------------------------------------------

/** Creates a workflow (asserting 201) and returns the `workflow` of the response. */
export async function createWorkflow(api: Pick<Caller, 'post'>, body: Json = {}): Promise<any> {
  const res = await api.post('/api/workflows', { name: uniqueName(), ...body });
  expectStatus(res, 201);
  return res.body.workflow;
}

export async function getWorkflow(api: Caller, id: string): Promise<any> {
  const res = await api.get(`/api/workflows/${id}`);
  expectStatus(res, 200);
  return res.body.workflow;
}

export async function patchWorkflow(api: Pick<Caller, 'patch'>, id: string, body: unknown): Promise<any> {
  const res = await api.patch(`/api/workflows/${id}`, body);
  expectStatus(res, 200);
  return res.body.workflow;
}

export async function listWorkflows(api: Caller, query = ''): Promise<any[]> {
  const res = await api.get(`/api/workflows${query}`);
  expectStatus(res, 200);
  return res.body.workflows;
}

/** Creates a workflow of `body` and activates it; returns its id. */
export async function activateWorkflow(api: Pick<Caller, 'post' | 'patch'>, body: Json): Promise<string> {
  const { id } = await createWorkflow(api, body);
  await patchWorkflow(api, id, { isActive: true });
  return id;
}

/**
 * Creates an active workflow and returns its id. Its graph: `edges`, as objects or as paths
 * ('start > tag, is-vip >true vip': see paths()), and `nodes`, after a trigger node `start` of
 * `triggerType` unless they hold a trigger of their own.
 */
export async function activeWorkflow(api: Pick<Caller, 'post' | 'patch'>, triggerType: string, edges: unknown[] | string, nodes: unknown[], name = 'Test workflow'): Promise<string> {
  const hasTrigger = nodes.some((n) => (n as { type?: string }).type === 'trigger');
  const workflowJson = { nodes: hasTrigger ? nodes : [triggerNode(triggerType, 'start'), ...nodes], edges: typeof edges === 'string' ? paths(edges) : edges };
  return activateWorkflow(api, { name, triggerType, workflowJson });
}

/** Triggers a workflow manually (asserting 202) and returns the execution. */
export async function triggerWorkflow(api: Pick<Caller, 'post'>, id: string, body: unknown = {}): Promise<any> {
  const res = await api.post(`/api/workflows/${id}/trigger`, body);
  expectStatus(res, 202);
  return res.body.execution;
}

/** Creates the workflow of `body`, opens a ticket and runs the workflow on it by hand. */
export async function manualRunOnNewTicket(api: Pick<Caller, 'post'>, body: Json): Promise<{ workflowId: string; ticketId: string; executionId: string }> {
  const workflowId = (await createWorkflow(api, body)).id;
  const ticketId = await openTicket(api);
  const executionId = (await triggerWorkflow(api, workflowId, { ticketId })).id;
  return { workflowId, ticketId, executionId };
}

// --- executions -----------------------------------------------------------------------

export type StepView = { nodeId: string; status: string; result?: unknown; error?: string; startedAt: string; completedAt: string | null };
export type ExecutionView = {
  id: string;
  workflowId: string;
  workflowVersion: number;
  status: string;
  triggeredBy: string;
  ticketId: string | null;
  startedAt: string;
  completedAt: string | null;
  steps: StepView[];
  error: string | null;
};

/** GET /api/workflows/:id/executions, newest first. */
export async function listExecutions(api: Caller, workflowId: string, query = ''): Promise<ExecutionView[]> {
  const res = await api.get(`/api/workflows/${workflowId}/executions${query}`);
  expectStatus(res, 200);
  return res.body.executions;
}

/** `[nodeId, status]` of every step, in the order the API lists them. */
export const stepStates = (execution: ExecutionView) => execution.steps.map((s) => [s.nodeId, s.status]);

export const stepOf = (execution: ExecutionView, nodeId: string) => execution.steps.find((s) => s.nodeId === nodeId);

export const isFinished = (e: ExecutionView) => ['completed', 'failed', 'cancelled'].includes(e.status);

/** The executions of a workflow once `count` of them have finished. */
export async function finishedExecutions(api: Caller, workflowId: string, count = 1, timeoutMs = 20_000) {
  return eventually(async () => {
    const res = await api.get(`/api/workflows/${workflowId}/executions`);
    const done = ((res.body.executions ?? []) as ExecutionView[]).filter(isFinished);
    return done.length >= count ? res.body.executions : undefined;
  }, timeoutMs, `${count} finished execution(s) of workflow ${workflowId}`);
}

/** The workflow's (newest) execution once its step for `nodeId` has `status` (e.g. a delay `waiting`). */
export async function executionAtStep(api: Caller, workflowId: string, nodeId: string, status: string, timeoutMs = 20_000): Promise<ExecutionView> {
  return eventually(async () => {
    const [execution] = await listExecutions(api, workflowId);
    return execution && stepOf(execution, nodeId)?.status === status ? execution : undefined;
  }, timeoutMs, `a ${status} step for node ${nodeId} of workflow ${workflowId}`);
}

/**
 * The execution of the workflow that went through `nodeId`, once `until` holds for it (default:
 * it finished). Other updates of a ticket start runs of the same workflow that stop earlier.
 */
export async function runThrough(api: Caller, workflowId: string, nodeId: string, until: (e: ExecutionView) => boolean = isFinished, timeoutMs = 30_000): Promise<ExecutionView> {
  return eventually(async () => {
    const run = (await listExecutions(api, workflowId)).find((e) => e.steps.some((s) => s.nodeId === nodeId));
    return run && until(run) ? run : undefined;
  }, timeoutMs, `the execution of workflow ${workflowId} through node ${nodeId}`);
}

// --- approvals ------------------------------------------------------------------------

/** POST /api/approvals/:id/decision (the answer as it is: tests of refusals read it). */
export function decide<A extends Answer>(api: { post(path: string, body?: unknown): Promise<A> }, approvalId: string, body: Record<string, unknown>): Promise<A> {
  return api.post(`/api/approvals/${approvalId}/decision`, body);
}

/** The approval the workflow's newest run waits for at `nodeId` (its waiting step's `approvalId`), as GET /api/approvals/:id shows it. */
export async function approvalAsked(api: Caller, workflowId: string, nodeId: string, timeoutMs = 20_000): Promise<any> {
  const execution = await executionAtStep(api, workflowId, nodeId, 'waiting', timeoutMs);
  const { approvalId } = stepOf(execution, nodeId)!.result as { approvalId: string };
  const res = await api.get(`/api/approvals/${approvalId}`);
  expectStatus(res, 200);
  return res.body.approval;
}
