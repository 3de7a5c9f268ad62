import { describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Execution } from '../../src/executions/entity.ts';
import { runOnNewTicket, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { type ExecutionView, finishedExecutions, getTicket, openTicket, readMessages, stepOf } from '../helpers/api.ts';
import { actionNode, conditionNode, raiseToUrgent, subjectIsUrgent } from '../helpers/graphs.ts';

// docs/contract.md §5: which edges are followed, fan-out in parallel, a join runs once, templates.

const app = useEngineApp();

const listedNodes = (e: ExecutionView) => e.steps.map((s) => s.nodeId).sort();

describe('a condition that does not hold', () => {
  it('follows its false edge and never lists the true branch', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > is-urgent >true raise, is-urgent >false routine', [
      subjectIsUrgent(),
      raiseToUrgent(),
      actionNode('routine', { actionType: 'add_tag', tag: 'routine' }),
    ], { subject: 'How do I change my password?' });

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'is-urgent')).toMatchObject({ status: 'passed', result: false });
    expect(stepOf(execution, 'routine')?.status).toBe('completed');
    expect(stepOf(execution, 'raise')).toBeUndefined();
    expect(listedNodes(execution)).toEqual(['is-urgent', 'routine', 'start']);
    expect(await getTicket(api, ticketId)).toMatchObject({ priority: 'medium', tags: ['routine'] });
  });
});

describe('fan-out and joins', () => {
  it('runs both branches of a fan-out and a diamond join once, with templates filled', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'manual', 'start > left, start > right, left > join, right > join', [
      actionNode('left', { actionType: 'add_tag', tag: 'left-{{data.ref}}' }),
      actionNode('right', { actionType: 'set_priority', priority: 'high' }),
      actionNode('join', { actionType: 'send_reply', body: 'Hi {{ticket.customerName}}, about "{{ticket.subject}}" (ref {{data.ref}}).' }),
    ]);
    const ticketId = await openTicket(api, { subject: 'Invoice missing' });
    const res = await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId, data: { ref: 'R-42' } });
    expect(res.status).toBe(202);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    expect(listedNodes(execution)).toEqual(['join', 'left', 'right', 'start']);
    const join = stepOf(execution, 'join')!;
    // The join started only after both branches had finished.
    for (const branch of ['left', 'right']) expect(Date.parse(join.startedAt)).toBeGreaterThanOrEqual(Date.parse(stepOf(execution, branch)!.completedAt!));
    expect(await getTicket(api, ticketId)).toMatchObject({ tags: ['left-R-42'], priority: 'high' });
    const outbound = (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');
    expect(outbound.map((m) => m.body)).toEqual(['Hi Casey Customer, about "Invoice missing" (ref R-42).']);
  });

  it('runs a join once when one of its branches is not taken', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > is-vip >true vip, is-vip >false standard, vip > ack, standard > ack', [
      conditionNode('is-vip', { field: 'ticket.customerEmail', operator: 'ends_with', value: '@vip.example.com' }),
      actionNode('vip', { actionType: 'add_tag', tag: 'vip' }),
      actionNode('standard', { actionType: 'add_tag', tag: 'standard' }),
      actionNode('ack', { actionType: 'send_reply', body: 'We received "{{ticket.subject}}".', bodyHtml: '<p>We received <b>{{ticket.subject}}</b>.</p>' }),
    ], { subject: 'Login <loop>', customerEmail: 'dana@vip.example.com' });

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    expect(listedNodes(execution)).toEqual(['ack', 'is-vip', 'start', 'vip']);
    expect((await getTicket(api, ticketId)).tags).toEqual(['vip']);
    const outbound = (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');
    expect(outbound.map((m) => m.body)).toEqual(['We received "Login <loop>".']);
    // Values inserted into HTML are escaped; the author's markup is kept.
    expect(outbound.map((m) => m.bodyHtml)).toEqual(['<p>We received <b>Login &lt;loop&gt;</b>.</p>']);
  });
});

describe('a path that reaches no action', () => {
  it('is complete when the execution is created, with its steps, and never becomes a Temporal run', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > is-urgent >true escalate', [
      subjectIsUrgent(),
      raiseToUrgent('escalate'),
    ]);
    const calm = await openTicket(api, { subject: 'A quiet question' });
    const urgent = await openTicket(api, { subject: 'URGENT: site down' });

    const executions = await finishedExecutions(api, workflowId, 2);
    const byTicket = new Map<string | null, ExecutionView>(executions.map((e: ExecutionView) => [e.ticketId, e]));
    expect(byTicket.get(calm)).toMatchObject({ status: 'completed', error: null });
    expect(byTicket.get(calm)!.steps.map((s) => [s.nodeId, s.status, s.result])).toEqual([
      ['start', 'passed', undefined],
      ['is-urgent', 'passed', false],
    ]);
    expect((await getTicket(api, calm)).priority).toBe('medium');
    expect((await getTicket(api, urgent)).priority).toBe('urgent');

    const temporalIdOf = async (ticketId: string) =>
      (await app.orm.em.fork().findOneOrFail(Execution, { workflow: workflowId, ticketId })).temporalWorkflowId;
    await expect(app.engine.client.workflow.getHandle(await temporalIdOf(calm)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await app.engine.client.workflow.getHandle(await temporalIdOf(urgent)).describe()).status.name).toBe('COMPLETED');
  });
});
