import { describe, expect, it } from 'vitest';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { finishedExecutions, newTicket } from '../helpers/api.ts';
import { actionNode, raiseToUrgent, subjectIsUrgent } from '../helpers/graphs.ts';

const app = useEngineApp();

describe('ticket_created workflows', () => {
  it('run their actions on the new ticket and record every step', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > is-urgent >true raise > reply', [
      subjectIsUrgent(),
      raiseToUrgent(),
      actionNode('reply', { actionType: 'send_reply', body: 'Hello {{ticket.customerName}}, we are on it.' }),
    ]);
    const ticket = (await api.post('/api/v1/tickets', newTicket({ subject: 'URGENT: printer on fire' }))).body.data;

    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution).toMatchObject({ status: 'completed', triggeredBy: 'ticket_created', ticketId: ticket.id, workflowVersion: 1, error: null });
    expect(execution.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'passed'],
      ['is-urgent', 'passed'],
      ['raise', 'completed'],
      ['reply', 'completed'],
    ]);
    expect(execution.steps[1].result).toBe(true);
    expect((await api.get(`/api/v1/tickets/${ticket.id}`)).body.data.priority).toBe('urgent');
    const messages = (await api.get(`/api/v1/tickets/${ticket.id}/messages`)).body;
    expect(messages.data.at(-1)).toMatchObject({ direction: 'outbound', body: 'Hello Casey Customer, we are on it.' });
  });
});
