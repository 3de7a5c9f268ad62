import { describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import { expectError } from '../helpers/expect.ts';
import { activeWorkflow, engineWorkspace, eventually, executionAtStep, finishedExecutions, openTicket, readTicket, useEngineApp } from '../helpers/engine.ts';

// docs/contract.md §4: an execution runs the version current when it was triggered and records it;
// deleting a workflow cancels its running executions.

const app = useEngineApp();

const graphTagging = (tag: string, delaySeconds?: number) => ({
  nodes: [
    { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
    ...(delaySeconds ? [{ id: 'wait', type: 'action', data: { actionType: 'delay', seconds: delaySeconds } }] : []),
    { id: 'mark', type: 'action', data: { actionType: 'add_tag', tag } },
  ],
  edges: delaySeconds
    ? [
        { source: 'start', target: 'wait' },
        { source: 'wait', target: 'mark' },
      ]
    : [{ source: 'start', target: 'mark' }],
});

describe('version pinning', () => {
  it('finishes a run with the graph of its version although the workflow was edited meanwhile', async () => {
    const { api } = await engineWorkspace(app);
    const v1 = graphTagging('v1', 2);
    const workflowId = await activeWorkflow(api, 'ticket_created', v1.edges, v1.nodes);
    const first = await openTicket(api);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    expect(waiting).toMatchObject({ status: 'running', workflowVersion: 1, ticketId: first });

    const edited = await api.patch(`/api/workflows/${workflowId}`, { workflowJson: graphTagging('v2') });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.workflow.version).toBe(2);

    const [done] = await finishedExecutions(api, workflowId);
    expect(done).toMatchObject({ id: waiting.id, status: 'completed', workflowVersion: 1 });
    expect(done.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'wait', 'mark']);
    expect((await readTicket(api, first)).tags).toEqual(['v1']);

    // A run triggered after the edit runs version 2.
    const second = await openTicket(api);
    const executions = await finishedExecutions(api, workflowId, 2);
    expect(executions[0]).toMatchObject({ status: 'completed', workflowVersion: 2, ticketId: second });
    expect((await readTicket(api, second)).tags).toEqual(['v2']);
    expect((await readTicket(api, first)).tags).toEqual(['v1']);
  });
});

describe('deleting a workflow', () => {
  it('cancels its waiting run, which never reaches its next node, and hides it and its executions', async () => {
    const { api } = await engineWorkspace(app);
    const graph = graphTagging('too-late', 2);
    const workflowId = await activeWorkflow(api, 'ticket_created', graph.edges, graph.nodes);
    const ticketId = await openTicket(api);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');

    expect((await api.delete(`/api/workflows/${workflowId}`)).status).toBe(204);
    expectError(await api.get(`/api/workflows/${workflowId}`), 404, 'not_found');
    expectError(await api.get(`/api/workflows/${workflowId}/executions`), 404, 'not_found');
    expectError(await api.post(`/api/workflows/${workflowId}/executions/${waiting.id}/cancel`), 404, 'not_found');
    expect((await api.get('/api/workflows')).body.workflows).toEqual([]);

    // The API no longer shows the execution; it ended cancelled, and its Temporal run with it.
    const ended = await eventually(async () => {
      const row = await app.orm.em.fork().findOneOrFail(Execution, { id: waiting.id });
      return row.status === 'pending' || row.status === 'running' ? undefined : row;
    });
    expect(ended.status).toBe('cancelled');
    const handle = app.engine.client.workflow.getHandle(ended.temporalWorkflowId);
    await expect(handle.result()).rejects.toThrow(/cancel/i);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    // The node after the delay never ran.
    expect((await readTicket(api, ticketId)).tags).toEqual([]);
    // New tickets do not start it.
    const later = await openTicket(api);
    expect((await readTicket(api, later)).tags).toEqual([]);
  });
});
