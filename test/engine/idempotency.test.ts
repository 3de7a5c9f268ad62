import { describe, expect, it } from 'vitest';
import { settled, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { finishedExecutions, getTicket, listExecutions, newTicket } from '../helpers/api.ts';

// docs/contract.md §1, Idempotent writes, with a real worker: a retried keyed write starts no
// second automation run, and a keyed manual run starts once its execution has committed.

const app = useEngineApp();

const tagOnCreate = [
  { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
  { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'seen' } },
];

describe('Idempotency-Key with the workflow engine', () => {
  it('a ticket creation sent again, in sequence and in parallel, makes one ticket and one automation run', async () => {
    const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', [{ source: 'start', target: 'tag' }], tagOnCreate);
    const key = { 'idempotency-key': 'create-once' };
    const first = await api.post('/api/v1/tickets', newTicket(), key);
    expect(first.status).toBe(201);
    const again = [await api.post('/api/v1/tickets', newTicket(), key), ...(await Promise.all(Array.from({ length: 5 }, () => api.post('/api/v1/tickets', newTicket(), key))))];
    expect(again.map((r) => [r.status, r.headers.get('idempotency-replayed'), r.body.data.id])).toEqual(Array(6).fill([201, 'true', first.body.data.id]));

    await settled(app, ws.workspaceId);
    const executions = await listExecutions(api, workflowId);
    expect(executions.map((e) => [e.ticketId, e.status])).toEqual([[first.body.data.id, 'completed']]);
    expect((await getTicket(api, first.body.data.id)).tags).toEqual(['seen']);
    expect((await api.get('/api/v1/tickets')).body.pagination.total).toBe(1);
  });

  it('a manual run sent again runs once, and its replay is the answer as first given', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'manual', 'start > tag', [tagOnCreate[1]]);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    const key = { 'idempotency-key': 'run-once' };
    const first = await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: ticket.id }, key);
    expect(first.status).toBe(202);
    const [done] = await finishedExecutions(api, workflowId);
    expect(done).toMatchObject({ id: first.body.execution.id, status: 'completed' });

    const replay = await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: ticket.id }, key);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(first.body);
    expect(await listExecutions(api, workflowId)).toHaveLength(1);
    expect((await getTicket(api, ticket.id)).tags).toEqual(['seen']);
  });
});
