import { describe, expect, it } from 'vitest';
import {
  activeWorkflow,
  engineWorkspace,
  finishedExecutions,
  openTicket,
  readMessages,
  readTicket,
  stepOf,
  stepStates,
  useEngineApp,
  workspaceWithWorkflow,
} from '../helpers/engine.ts';
import { actionNode } from '../helpers/workflows.ts';

// docs/contract.md §4/§5: a failing action fails the execution, naming the node, with a readable
// reason; nothing after it runs.

const app = useEngineApp(); // no httpAllow: private addresses are refused

describe('a failing action', () => {
  it('assigning to someone who is not a member fails the execution at that node', async () => {
    const { api } = await engineWorkspace(app, [{ userId: 'agent-1' }]);
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > assign > after', [
      actionNode('assign', { actionType: 'assign_ticket', assignTo: 'ghost-user' }),
      actionNode('after', { actionType: 'add_tag', tag: 'assigned' }),
    ]);
    const ticketId = await openTicket(api);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('failed');
    expect(execution.completedAt).not.toBeNull();
    expect(stepStates(execution)).toEqual([
      ['start', 'passed'],
      ['assign', 'failed'],
    ]);
    expect(stepOf(execution, 'assign')!.error).toMatch(/ghost-user/);
    expect(stepOf(execution, 'assign')!.error).toMatch(/not a current member/);
    expect(execution.error).toMatch(/assign/);
    expect(execution.error).toMatch(/ghost-user/);
    expect(await readTicket(api, ticketId)).toMatchObject({ assignedTo: null, tags: [] });
  });

  it('a failure on one branch ends a delay waiting on another: the step does not stay waiting', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > beat > assign, start > pause', [
      actionNode('beat', { actionType: 'delay', seconds: 1 }),
      actionNode('assign', { actionType: 'assign_ticket', assignTo: 'ghost-user' }),
      actionNode('pause', { actionType: 'delay', seconds: 30 }),
    ]);
    await openTicket(api);

    const [execution] = await finishedExecutions(api, workflowId, 1, 15_000);
    expect(execution.status).toBe('failed');
    expect(stepOf(execution, 'assign')?.status).toBe('failed');
    expect(stepOf(execution, 'pause')).toMatchObject({ status: 'failed', error: 'The execution failed elsewhere while this step was waiting.' });
  });

  it('an action that needs a ticket fails a run that has none', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'manual', 'start > reply', [actionNode('reply', { actionType: 'send_reply', body: 'Hello' })]);
    expect((await api.post(`/api/workflows/${workflowId}/trigger`, {})).status).toBe(202);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'failed', ticketId: null });
    expect(stepOf(execution, 'reply')).toMatchObject({ status: 'failed' });
    expect(stepOf(execution, 'reply')!.error).toMatch(/needs a ticket/);
    expect(execution.error).toMatch(/reply/);
  });

  it('an http_request to a private address is refused and fails the run', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > notify > reply', [
      actionNode('notify', { actionType: 'http_request', method: 'POST', url: 'http://127.0.0.1:9/hook', body: { ticket: '{{ticket.id}}' } }),
      actionNode('reply', { actionType: 'send_reply', body: 'We told the team.' }),
    ]);
    const ticketId = await openTicket(api);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('failed');
    expect(stepOf(execution, 'notify')!.error).toMatch(/Refused to connect to 127\.0\.0\.1/);
    expect(stepOf(execution, 'reply')).toBeUndefined();
    expect(execution.error).toMatch(/notify/);
    expect((await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound')).toEqual([]);
  });
});
