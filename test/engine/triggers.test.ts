import { describe, expect, it } from 'vitest';
import { engineWorkspace, runOnNewTicket, settled, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { activeWorkflow, expectStatus, finishedExecutions, getTicket, listExecutions, openTicket, readMessages, stepOf, stepStates } from '../helpers/api.ts';
import { actionNode, conditionNode, raiseToUrgent } from '../helpers/graphs.ts';

// Each event trigger type, end to end: a change through the API → the event → an execution
// that completes → the ticket changed as the workflow says.

const app = useEngineApp();

describe('ticket_created', () => {
  it('runs on a new ticket and changes it', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'new' })]);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'ticket_created', ticketId, error: null });
    expect(stepStates(execution)).toEqual([
      ['start', 'passed'],
      ['tag', 'completed'],
    ]);
    expect((await getTicket(api, ticketId)).tags).toEqual(['new']);
  });
});

describe('ticket_updated', () => {
  it('sees the change as changes.<field>.from/to', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_updated', 'start > to-pending >true tag', [
      conditionNode('to-pending', { field: 'changes.status.to', operator: 'equals', value: 'pending' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'awaiting-customer' }),
    ]);
    const ticketId = await openTicket(api);
    expect((await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'pending' })).status).toBe(200);

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'ticket_updated', ticketId });
    expect(stepOf(execution, 'to-pending')).toMatchObject({ status: 'passed', result: true });
    expect(stepOf(execution, 'tag')?.status).toBe('completed');
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'pending', tags: ['awaiting-customer'] });
  });

  it('evaluates changed_to against the field that changed', async () => {
    const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'ticket_updated', 'start > escalated >true urgent', [
      conditionNode('escalated', { field: 'status', operator: 'changed_to', value: 'escalated' }),
      raiseToUrgent('urgent'),
    ]);
    const ticketId = await openTicket(api);
    // A change of another field: the workflow runs, the condition does not hold.
    await api.patch(`/api/v1/tickets/${ticketId}`, { priority: 'low' });
    const [first] = await finishedExecutions(api, workflowId);
    expect(stepOf(first, 'escalated')).toMatchObject({ status: 'passed', result: false });
    expect(stepOf(first, 'urgent')).toBeUndefined();
    expect((await getTicket(api, ticketId)).priority).toBe('low');

    await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'escalated' });
    const [second] = await finishedExecutions(api, workflowId, 2);
    expect(second).toMatchObject({ status: 'completed', triggeredBy: 'ticket_updated' });
    expect(stepOf(second, 'escalated')).toMatchObject({ result: true });
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'escalated', priority: 'urgent' });

    // The workflow's own change (priority) does not start it again for the ticket.
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, workflowId)).toHaveLength(2);
  });
});

describe('ticket_closed', () => {
  it('runs when a PATCH closes the ticket', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_closed', 'start > bye', [
      actionNode('bye', { actionType: 'send_reply', body: 'Ticket "{{ticket.subject}}" is now {{ticket.status}}.' }),
    ]);
    const ticketId = await openTicket(api, { subject: 'Broken fax' });
    await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'pending' });
    await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'closed' });

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'ticket_closed', ticketId });
    const messages = await readMessages(api, ticketId);
    expect(messages.at(-1)).toMatchObject({ direction: 'outbound', body: 'Ticket "Broken fax" is now closed.' });
    expect(await listExecutions(api, workflowId)).toHaveLength(1);
  });
});

describe('message_received', () => {
  it('runs on a customer reply, sees message.*, and not on a reply from someone else', async () => {
    const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'message_received', 'start > refund >true tag', [
      conditionNode('refund', { field: 'message.body', operator: 'contains', value: 'refund' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'refund' }),
    ]);
    const ticketId = await openTicket(api);
    const stranger = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Refund me too!', senderEmail: 'stranger@example.com' });
    expect(stranger.status).toBe(201);
    expect(stranger.body.meta.messageAddedEvent).toBe('skipped_sender_mismatch');
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, workflowId)).toEqual([]);
    expect((await getTicket(api, ticketId)).tags).toEqual([]);

    const reply = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'I would like a REFUND please', senderEmail: ' Customer@Example.com ' });
    expect(reply.body.meta.messageAddedEvent).toBe('emitted');
    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'message_received', ticketId });
    expect(stepOf(execution, 'refund')).toMatchObject({ result: true });
    expect((await getTicket(api, ticketId)).tags).toEqual(['refund']);
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, workflowId)).toHaveLength(1);
  });
});

describe('tag_added', () => {
  it("is fired by another workflow's add_tag, with the tag in its context", async () => {
    const { ws, api } = await engineWorkspace(app);
    const tagger = await activeWorkflow(api, 'ticket_created', 'start > vip', [actionNode('vip', { actionType: 'add_tag', tag: 'vip' })]);
    const onTag = await activeWorkflow(api, 'tag_added', 'start > is-vip >true high > note', [
      conditionNode('is-vip', { field: 'tag', operator: 'equals', value: 'vip' }),
      actionNode('high', { actionType: 'set_priority', priority: 'high' }),
      actionNode('note', { actionType: 'send_reply', body: 'You are tagged {{tag}}.' }),
    ]);
    const ticketId = await openTicket(api);

    const [tagged] = await finishedExecutions(api, tagger);
    expect(tagged.status).toBe('completed');
    const [execution] = await finishedExecutions(api, onTag);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'tag_added', ticketId });
    expect(stepOf(execution, 'is-vip')).toMatchObject({ result: true });
    expect(await getTicket(api, ticketId)).toMatchObject({ tags: ['vip'], priority: 'high' });
    expect((await readMessages(api, ticketId)).at(-1)).toMatchObject({ direction: 'outbound', body: 'You are tagged vip.' });
    // The workflow's reply is a message_added, which no workflow listens to; the relay marks it delivered.
    const events = await settled(app, ws.workspaceId);
    const added = events.filter((e) => e.type === 'message_added');
    expect(added.map((e) => (e.payload.message as { body: string }).body)).toEqual(['You are tagged vip.']);
    expect(added[0].payload.ticket).toMatchObject({ id: ticketId, priority: 'high' });
  });

  it('is fired by POST …/tags through the API; a tag the ticket has already fires nothing', async () => {
    const { ws, api } = await engineWorkspace(app);
    const onTag = await activeWorkflow(api, 'tag_added', 'start > is-vip >true urgent', [
      conditionNode('is-vip', { field: 'tag', operator: 'equals', value: 'vip' }),
      actionNode('urgent', { actionType: 'set_priority', priority: 'urgent' }),
    ]);
    const ticketId = await openTicket(api);
    expectStatus(await api.post(`/api/v1/tickets/${ticketId}/tags`, { tag: ' vip ' }), 200);

    const [execution] = await finishedExecutions(api, onTag);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'tag_added', ticketId });
    expect(stepOf(execution, 'is-vip')).toMatchObject({ result: true });
    expect(await getTicket(api, ticketId)).toMatchObject({ tags: ['vip'], priority: 'urgent' });

    expectStatus(await api.post(`/api/v1/tickets/${ticketId}/tags`, { tag: 'vip' }), 200);
    expectStatus(await api.delete(`/api/v1/tickets/${ticketId}/tags/vip`), 200);
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, onTag)).toHaveLength(1);
  });
});
