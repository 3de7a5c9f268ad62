import { describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect.ts';
import { engineWorkspace, settled, useEngineApp } from '../helpers/engine.ts';
import { finishedExecutions, getTicket, listExecutions, openTicket, readMessages, stepOf } from '../helpers/api.ts';
import { actionNode, conditionNode, paths, triggerNode } from '../helpers/graphs.ts';

// docs/contract.md §4: only active workflows start on events; the trigger endpoint runs any workflow
// (a test run), triggeredBy manual, with optional ticket and data.

const app = useEngineApp();

/** ticket_created workflow, left inactive: data.plan decides which reply goes out. */
const graph = {
  nodes: [
    triggerNode('ticket_created', 'start'),
    conditionNode('is-pro', { field: 'data.plan', operator: 'equals', value: 'pro' }),
    actionNode('pro-reply', { actionType: 'send_reply', body: 'Priority support for {{data.customer.name}} on the {{data.plan}} plan.' }),
    actionNode('tag', { actionType: 'add_tag', tag: 'triaged' }),
  ],
  edges: paths('start > is-pro >true pro-reply, start > tag'),
};

async function inactiveWorkflow(api: Awaited<ReturnType<typeof engineWorkspace>>['api'], workflowJson: unknown = graph): Promise<string> {
  const res = await api.post('/api/workflows', { name: 'Test run me', triggerType: 'ticket_created', workflowJson });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.workflow).toMatchObject({ isActive: false, version: 1 });
  return res.body.workflow.id;
}

describe('an inactive workflow', () => {
  it('does not run on events, but runs through the trigger endpoint with data', async () => {
    const { ws, api } = await engineWorkspace(app);
    const workflowId = await inactiveWorkflow(api);
    const ticketId = await openTicket(api);
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, workflowId)).toEqual([]);
    expect((await getTicket(api, ticketId)).tags).toEqual([]);

    const res = await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId, data: { plan: 'PRO', customer: { name: 'Ada' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.execution).toMatchObject({ workflowId, workflowVersion: 1, triggeredBy: 'manual', ticketId, completedAt: null, error: null });
    expect(['pending', 'running']).toContain(res.body.execution.status);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ id: res.body.execution.id, status: 'completed', triggeredBy: 'manual' });
    expect(stepOf(execution, 'is-pro')).toMatchObject({ result: true });
    expect((await getTicket(api, ticketId)).tags).toEqual(['triaged']);
    expect((await readMessages(api, ticketId)).at(-1)).toMatchObject({ direction: 'outbound', body: 'Priority support for Ada on the PRO plan.' });
    // Still inactive: a test run does not activate it.
    expect((await api.get(`/api/workflows/${workflowId}`)).body.workflow.isActive).toBe(false);
  });

  it('runs without a ticket and without data', async () => {
    const { api } = await engineWorkspace(app);
    const workflowId = await inactiveWorkflow(api, {
      nodes: [triggerNode('ticket_created', 'start'), conditionNode('has-data', { field: 'data.plan', operator: 'is_not_empty' })],
      edges: paths('start > has-data'),
    });
    const res = await api.post(`/api/workflows/${workflowId}/trigger`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.execution).toMatchObject({ triggeredBy: 'manual', ticketId: null });

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', ticketId: null });
    expect(stepOf(execution, 'has-data')).toMatchObject({ result: false });
  });
});

describe('the trigger endpoint refuses', () => {
  it('a ticket of another workspace, or no ticket at all, with 404', async () => {
    const { api } = await engineWorkspace(app);
    const other = await engineWorkspace(app);
    const workflowId = await inactiveWorkflow(api);
    const foreignTicket = await openTicket(other.api);
    expectError(await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: foreignTicket }), 404, 'not_found');
    expectError(await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: 'not-a-uuid' }), 404, 'not_found');
    expectError(await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
    expectError(await other.api.post(`/api/workflows/${workflowId}/trigger`, {}), 404, 'not_found');
    expect(await listExecutions(api, workflowId)).toEqual([]);
    expect((await getTicket(other.api, foreignTicket)).tags).toEqual([]);
  });

  it.each([
    ['an array', []],
    ['a string', 'plan=pro'],
    ['null', null],
    ['a number', 42],
  ])('data that is %s, with 400', async (_what, data) => {
    const { api } = await engineWorkspace(app);
    const workflowId = await inactiveWorkflow(api);
    const res = await api.post(`/api/workflows/${workflowId}/trigger`, { data });
    expectError(res, 400, 'validation_failed');
    expect(JSON.stringify(res.body.error.details)).toContain('data');
    expect(await listExecutions(api, workflowId)).toEqual([]);
  });
});
