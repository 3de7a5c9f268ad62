import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { executionAtStep, finishedExecutions, getTicket, openTicket, readMessages, runThrough, stepOf } from '../helpers/api.ts';
import { actionNode, conditionNode, triggerNode } from '../helpers/graphs.ts';

// docs/automations.md, "What a run sees": after every wait (delay, wait_for_reply) and every
// outbound request a run reads its ticket afresh, so what comes next decides on the ticket as
// it is then; what the trigger carried (changes, message, tag, data) stays as it was.

/** A receiver that, while it answers, lets the test change the ticket (an outside system that takes its time). */
let receiver: http.Server;
let hookUrl: string;
let duringRequest: () => Promise<void> = async () => {};
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      void duringRequest().then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const app = useEngineApp({ httpAllow: ['127.0.0.1'] });

const outbound = async (api: Client, ticketId: string) => (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound').map((m) => m.body);

describe('a run after a wait', () => {
  it('after a delay, conditions and templates see the ticket as it is now; changes stay what the trigger carried', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_updated', 'start > to-high > pause > is-urgent >true tell', [
      triggerNode('ticket_updated', 'start'),
      conditionNode('to-high', { field: 'priority', operator: 'changed_to', value: 'high' }),
      actionNode('pause', { actionType: 'delay', seconds: 2 }),
      conditionNode('is-urgent', { field: 'ticket.priority', operator: 'equals', value: 'urgent' }),
      actionNode('tell', { actionType: 'send_reply', body: 'Now {{ticket.priority}}, assigned to {{ticket.assignedTo}}; raised to {{changes.priority.to}} first.' }),
    ]);
    const ticketId = await openTicket(api);
    await api.patch(`/api/v1/tickets/${ticketId}`, { priority: 'high' });
    await executionAtStep(api, workflowId, 'pause', 'waiting');
    // While the run waits, an agent raises the ticket further and hands it to the AI agent.
    await api.patch(`/api/v1/tickets/${ticketId}`, { priority: 'urgent', assignedTo: 'ai' });

    const run = await runThrough(api, workflowId, 'pause');
    expect(run.status).toBe('completed');
    expect(stepOf(run, 'is-urgent')).toMatchObject({ status: 'passed', result: true });
    expect(await outbound(api, ticketId)).toEqual(['Now urgent, assigned to ai; raised to high first.']);
  });

  it('after wait_for_reply, the run sees the ticket the customer reopened', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_updated', 'start > to-pending > await >true status', [
      triggerNode('ticket_updated', 'start'),
      conditionNode('to-pending', { field: 'status', operator: 'changed_to', value: 'pending' }),
      actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 30 }),
      actionNode('status', { actionType: 'add_tag', tag: 'answered-while-{{ticket.status}}' }),
    ]);
    const ticketId = await openTicket(api, { customerEmail: 'dana@example.com' });
    await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'pending' });
    await executionAtStep(api, workflowId, 'await', 'waiting');
    await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Here you go.', senderEmail: 'dana@example.com' });

    const run = await runThrough(api, workflowId, 'await');
    expect(run.status).toBe('completed');
    expect((await getTicket(api, ticketId)).tags).toEqual(['answered-while-open']);
  });

  it('after an outbound request, the run sees what changed while the request took its time', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > notify > escalated >true tag', [
      triggerNode('ticket_created', 'start'),
      actionNode('notify', { actionType: 'http_request', method: 'POST', url: hookUrl, body: { ticket: '{{ticket.id}}' } }),
      conditionNode('escalated', { field: 'ticket.status', operator: 'equals', value: 'escalated' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'seen-{{ticket.priority}}' }),
    ]);
    let ticketId = '';
    duringRequest = async () => {
      await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'escalated', priority: 'low' });
    };
    try {
      ticketId = await openTicket(api);
      const [run] = await finishedExecutions(api, workflowId, 1, 30_000);
      expect(run.status).toBe('completed');
      expect(stepOf(run, 'escalated')).toMatchObject({ status: 'passed', result: true });
      expect((await getTicket(api, ticketId)).tags).toEqual(['seen-low']);
    } finally {
      duringRequest = async () => {};
    }
  });
});
