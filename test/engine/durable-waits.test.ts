import { describe, expect, it } from 'vitest';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { executionAtStep, finishedExecutions, newTicket } from '../helpers/api.ts';
import { actionNode, triggerNode } from '../helpers/graphs.ts';

const app = useEngineApp();

describe('a waiting run', () => {
  it('survives a worker restart and takes the reply branch when the customer answers', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'created > await-answer >true thanks, await-answer >false nudge', [
      triggerNode('ticket_created', 'created'),
      actionNode('await-answer', { actionType: 'wait_for_reply', timeoutSeconds: 120 }),
      actionNode('thanks', { actionType: 'add_tag', tag: 'answered' }),
      actionNode('nudge', { actionType: 'add_tag', tag: 'silent' }),
    ]);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    const waiting = await executionAtStep(api, workflowId, 'await-answer', 'waiting');
    expect(waiting.status).toBe('running');

    await app.worker!.stop();
    await app.startWorker();
    await api.post(`/api/v1/tickets/${ticket.id}/messages`, { body: 'Here is the answer', senderEmail: ticket.customerEmail });

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    const wait = execution.steps.find((s: { nodeId: string }) => s.nodeId === 'await-answer');
    expect(wait).toMatchObject({ status: 'completed', result: true });
    expect(execution.steps.map((s: { nodeId: string }) => s.nodeId)).not.toContain('nudge');
    expect((await api.get(`/api/v1/tickets/${ticket.id}`)).body.data.tags).toEqual(['answered']);
  });

  it('keeps its timer across a worker restart', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'created > pause > later', [
      triggerNode('ticket_created', 'created'),
      actionNode('pause', { actionType: 'delay', seconds: 3 }),
      actionNode('later', { actionType: 'set_priority', priority: 'low' }),
    ]);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    await executionAtStep(api, workflowId, 'pause', 'waiting');
    await app.worker!.stop();
    await app.startWorker();

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    expect((await api.get(`/api/v1/tickets/${ticket.id}`)).body.data.priority).toBe('low');
  });
});
