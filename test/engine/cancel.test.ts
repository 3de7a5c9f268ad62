import { describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect.ts';
import { engineWorkspace, runOnNewTicket, useEngineApp } from '../helpers/engine.ts';
import { activeWorkflow, executionAtStep, finishedExecutions, getTicket, stepOf } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// docs/contract.md §4: POST /api/workflows/:id/executions/:executionId/cancel.

const app = useEngineApp();

const longWait = {
  edges: 'start > wait > follow-up',
  nodes: [actionNode('wait', { actionType: 'delay', seconds: 30 }), actionNode('follow-up', { actionType: 'add_tag', tag: 'followed-up' })],
};

describe('cancelling an execution', () => {
  it('stops a run waiting in a delay: it ends cancelled at once, and a second cancel is 409', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, longWait.edges, longWait.nodes);

    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    expect(waiting.status).toBe('running');
    expect(stepOf(waiting, 'wait')).toMatchObject({ status: 'waiting', completedAt: null });
    expect(stepOf(waiting, 'follow-up')).toBeUndefined();

    const res = await api.post(`/api/workflows/${workflowId}/executions/${waiting.id}/cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.execution).toMatchObject({ id: waiting.id, workflowId });

    // Well before the 30 s delay would have ended.
    const [ended] = await finishedExecutions(api, workflowId, 1, 10_000);
    expect(ended).toMatchObject({ id: waiting.id, status: 'cancelled', error: null });
    expect(ended.completedAt).not.toBeNull();
    // The node after the delay is listed as never reached.
    expect(stepOf(ended, 'follow-up')).toMatchObject({ status: 'not_reached', completedAt: ended.completedAt });
    // The cut-short delay does not stay `waiting` on a finished execution.
    expect(stepOf(ended, 'wait')).toMatchObject({ status: 'cancelled', error: 'Not waited out: the execution was cancelled.' });
    expect(stepOf(ended, 'wait')?.completedAt).toBe(ended.completedAt);
    expect((await getTicket(api, ticketId)).tags).toEqual([]);

    expectError(await api.post(`/api/workflows/${workflowId}/executions/${waiting.id}/cancel`), 409, 'execution_finished');
  });

  it('a finished execution cannot be cancelled (409)', async () => {
    const { api, workflowId } = await runOnNewTicket(app, 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'seen' })]);
    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    expectError(await api.post(`/api/workflows/${workflowId}/executions/${done.id}/cancel`), 409, 'execution_finished');
    const [after] = await finishedExecutions(api, workflowId);
    expect(after.status).toBe('completed');
  });

  it('unknown executions, and executions of another workspace, are 404', async () => {
    const { api, workflowId } = await runOnNewTicket(app, longWait.edges, longWait.nodes);
    const other = await engineWorkspace(app);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');

    expectError(await api.post(`/api/workflows/${workflowId}/executions/00000000-0000-4000-8000-000000000000/cancel`), 404, 'not_found');
    expectError(await api.post(`/api/workflows/${workflowId}/executions/not-an-id/cancel`), 404, 'not_found');
    expectError(await other.api.post(`/api/workflows/${workflowId}/executions/${waiting.id}/cancel`), 404, 'not_found');
    const otherWorkflow = await activeWorkflow(other.api, 'manual', '', []);
    expectError(await other.api.post(`/api/workflows/${otherWorkflow}/executions/${waiting.id}/cancel`), 404, 'not_found');

    // Still waiting; clean up by cancelling it.
    expect((await api.post(`/api/workflows/${workflowId}/executions/${waiting.id}/cancel`)).status).toBe(202);
    const [ended] = await finishedExecutions(api, workflowId, 1, 10_000);
    expect(ended.status).toBe('cancelled');
  });
});
