import { describe, expect, it } from 'vitest';
import { engineWorkspace, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { activeWorkflow, finishedExecutions, getTicket, openTicket, readMessages, stepOf, stepStates } from '../helpers/api.ts';
import { actionNode, conditionNode } from '../helpers/graphs.ts';

// docs/contract.md §4/§5: a failing action fails the execution, naming the node, with a readable
// reason; nothing after it runs, and the steps say so: the other branches settle (a wait is cut
// short as `cancelled`, an action under way ends as it ends) and the nodes never come to are
// `not_reached`.

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
      ['after', 'not_reached'],
    ]);
    expect(stepOf(execution, 'assign')!.error).toMatch(/ghost-user/);
    expect(stepOf(execution, 'assign')!.error).toMatch(/not a current member/);
    expect(execution.error).toMatch(/assign/);
    expect(execution.error).toMatch(/ghost-user/);
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: null, tags: [] });
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
    expect(stepOf(execution, 'pause')).toMatchObject({ status: 'cancelled', error: 'Not waited out: node "assign" failed.' });
    expect(stepOf(execution, 'pause')!.completedAt).not.toBeNull();
  });

  it('two branches failing at once both record their failure, and what follows them is not reached', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > first > join, start > second > join, start > tag', [
      actionNode('first', { actionType: 'assign_ticket', assignTo: 'ghost-one' }),
      actionNode('second', { actionType: 'assign_ticket', assignTo: 'ghost-two' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'seen' }),
      actionNode('join', { actionType: 'set_priority', priority: 'high' }),
    ]);
    const ticketId = await openTicket(api);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('failed');
    expect(Object.fromEntries(stepStates(execution))).toEqual({ start: 'passed', first: 'failed', second: 'failed', tag: 'completed', join: 'not_reached' });
    expect(stepOf(execution, 'first')!.error).toMatch(/ghost-one/);
    expect(stepOf(execution, 'second')!.error).toMatch(/ghost-two/);
    // The not-reached node is listed last, at the time the execution ended.
    expect(execution.steps.at(-1)).toMatchObject({ nodeId: 'join', startedAt: execution.completedAt, completedAt: execution.completedAt });
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: null, priority: 'medium', tags: ['seen'] });
  });

  it('a branch not taken is not listed, a branch cut short is', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > is-vip >true vip, is-vip >false assign > done', [
      conditionNode('is-vip', { field: 'ticket.priority', operator: 'equals', value: 'urgent' }),
      actionNode('vip', { actionType: 'add_tag', tag: 'vip' }),
      actionNode('assign', { actionType: 'assign_ticket', assignTo: 'ghost-user' }),
      actionNode('done', { actionType: 'add_tag', tag: 'done' }),
    ]);
    await openTicket(api);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(stepStates(execution)).toEqual([
      ['start', 'passed'],
      ['is-vip', 'passed'],
      ['assign', 'failed'],
      ['done', 'not_reached'],
    ]);
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
    expect(stepOf(execution, 'reply')?.status).toBe('not_reached');
    expect(execution.error).toMatch(/notify/);
    expect((await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound')).toEqual([]);
  });
});
