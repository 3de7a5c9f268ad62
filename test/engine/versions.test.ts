import { describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import { expectError } from '../helpers/expect.ts';
import { runOnNewTicket, useEngineApp } from '../helpers/engine.ts';
import { eventually } from '../helpers/poll.ts';
import { executionAtStep, finishedExecutions, getTicket, openTicket } from '../helpers/api.ts';
import { actionNode, paths, triggerNode } from '../helpers/graphs.ts';

// docs/contract.md §4: an execution runs the version current when it was triggered and records it;
// deleting a workflow cancels its running executions.

const app = useEngineApp();

const graphTagging = (tag: string, delaySeconds?: number) => ({
  nodes: [
    triggerNode('ticket_created', 'start'),
    ...(delaySeconds ? [actionNode('wait', { actionType: 'delay', seconds: delaySeconds })] : []),
    actionNode('mark', { actionType: 'add_tag', tag }),
  ],
  edges: paths(delaySeconds ? 'start > wait > mark' : 'start > mark'),
});

describe('version pinning', () => {
  it('finishes a run with the graph of its version although the workflow was edited meanwhile', async () => {
    const v1 = graphTagging('v1', 2);
    const { api, workflowId, ticketId: first } = await runOnNewTicket(app, v1.edges, v1.nodes);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    expect(waiting).toMatchObject({ status: 'running', workflowVersion: 1, ticketId: first });

    const edited = await api.patch(`/api/workflows/${workflowId}`, { workflowJson: graphTagging('v2') });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.workflow.version).toBe(2);

    const [done] = await finishedExecutions(api, workflowId);
    expect(done).toMatchObject({ id: waiting.id, status: 'completed', workflowVersion: 1 });
    expect(done.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'wait', 'mark']);
    expect((await getTicket(api, first)).tags).toEqual(['v1']);

    // A run triggered after the edit runs version 2.
    const second = await openTicket(api);
    const executions = await finishedExecutions(api, workflowId, 2);
    expect(executions[0]).toMatchObject({ status: 'completed', workflowVersion: 2, ticketId: second });
    expect((await getTicket(api, second)).tags).toEqual(['v2']);
    expect((await getTicket(api, first)).tags).toEqual(['v1']);
  });
});

describe('deleting a workflow', () => {
  it('cancels its waiting run, which never reaches its next node, and hides it and its executions', async () => {
    const graph = graphTagging('too-late', 2);
    const { api, workflowId, ticketId } = await runOnNewTicket(app, graph.edges, graph.nodes);
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
    expect((await getTicket(api, ticketId)).tags).toEqual([]);
    // New tickets do not start it.
    const later = await openTicket(api);
    expect((await getTicket(api, later)).tags).toEqual([]);
  });
});
