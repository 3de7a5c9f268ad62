import { describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../../src/events/entity.ts';
import { client, createWorkspace, deliverEvents, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, keysOf, outboxEvents } from '../helpers/expect.ts';
import { allMessages, createTicket, getTicket, newTicket, setStatus } from '../helpers/api.ts';

const app = useTestApp();
const { ws, api } = useWorkspace(app, [{ userId: 'agent-1' }]);

const events = (ticketId: string) => outboxEvents(app.orm, { ticketId });
const types = (rows: OutboxEvent[]) => rows.map((e) => e.type).sort();
const changesOf = (e: OutboxEvent) => e.payload.changes;

/** Runs `act` and returns the outbox rows it added for the ticket. */
async function eventsOf(ticketId: string, act: () => Promise<unknown>): Promise<OutboxEvent[]> {
  const before = new Set((await events(ticketId)).map((e) => e.id));
  await act();
  return (await events(ticketId)).filter((e) => !before.has(e.id));
}

const reply = (ticketId: string, senderEmail = 'customer@example.com') =>
  api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Still broken', senderEmail });

describe('outbox events of the tickets interface', () => {
  it('writes ticket_created, undelivered, with the created ticket, on create', async () => {
    const { id } = await createTicket(api, { language: 'de' });
    const rows = await events(id);
    expect(types(rows)).toEqual(['ticket_created']);
    expect(rows[0]).toMatchObject({ workspace: ws.workspaceId, ticketId: id, deliveredAt: null, attempts: 0 });
    expect(rows[0].payload.ticket).toMatchObject({ id, subject: 'Printer is on fire', status: 'open', language: 'de' });
  });

  it('writes ticket_updated with exactly the changed fields as { from, to }', async () => {
    const { id } = await createTicket(api);
    const rows = await eventsOf(id, () => api.patch(`/api/v1/tickets/${id}`, { priority: 'high', assignedTo: 'agent-1', status: 'open' }));
    expect(types(rows)).toEqual(['ticket_updated']);
    expect(changesOf(rows[0])).toEqual({ priority: { from: 'medium', to: 'high' }, assignedTo: { from: null, to: 'agent-1' } });
  });

  it('includes the resolutionType a status change sets or clears', async () => {
    const { id } = await createTicket(api);
    const solved = await eventsOf(id, () => setStatus(api, id, 'solved'));
    expect(changesOf(solved[0])).toEqual({
      status: { from: 'open', to: 'solved' },
      resolutionType: { from: null, to: 'resolved_by_agent' },
    });
    const reopened = await eventsOf(id, () => setStatus(api, id, 'escalated'));
    expect(changesOf(reopened[0])).toEqual({
      status: { from: 'solved', to: 'escalated' },
      resolutionType: { from: 'resolved_by_agent', to: null },
    });
  });

  it('writes ticket_closed beside ticket_updated when the status becomes closed', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'solved');
    const rows = await eventsOf(id, () => setStatus(api, id, 'closed'));
    expect(types(rows)).toEqual(['ticket_closed', 'ticket_updated']);
    expect(changesOf(rows.find((e) => e.type === 'ticket_updated')!)).toEqual({ status: { from: 'solved', to: 'closed' } });
    expect(rows.find((e) => e.type === 'ticket_closed')!.payload.ticket).toMatchObject({ id, status: 'closed' });
  });

  it('writes nothing for an update that changes nothing', async () => {
    const { id } = await createTicket(api);
    await api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'agent-1' });
    const before = await getTicket(api, id);
    const rows = await eventsOf(id, async () => {
      const res = await api.patch(`/api/v1/tickets/${id}`, { status: 'open', priority: 'medium', assignedTo: 'agent-1' });
      expect(res.status).toBe(200);
    });
    expect(rows).toEqual([]);
    expect((await getTicket(api, id)).updatedAt).toBe(before.updatedAt);
  });

  it('writes message_received only for a customer reply, message_added for anyone else', async () => {
    const { id } = await createTicket(api);
    const emitted = await eventsOf(id, () => reply(id, ' Customer@Example.com '));
    expect(types(emitted)).toEqual(['message_received']);
    expect(emitted[0].payload.message).toMatchObject({ body: 'Still broken', senderEmail: 'Customer@Example.com', ticketId: id });
    expect(emitted[0].payload.ticket).toMatchObject({ id, status: 'open' });
    const other = await eventsOf(id, () => reply(id, 'someone.else@example.com'));
    expect(types(other)).toEqual(['message_added']);
    expect(keysOf(other[0].payload)).toEqual(['cause', 'message', 'ticket']);
    expect(other[0].payload.message).toMatchObject({ body: 'Still broken', senderEmail: 'someone.else@example.com', direction: 'inbound', ticketId: id });
    expect(other[0].payload.ticket).toMatchObject({ id, status: 'open', language: null });
  });

  it('writes message_added for an agent’s reply, and reopens nothing', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'pending');
    let answer: { body: { data: { id: string } } } | undefined;
    const rows = await eventsOf(id, async () => {
      answer = await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'We are on it.' });
    });
    expect(types(rows)).toEqual(['message_added']);
    expect(rows[0].payload.message).toMatchObject({ id: answer!.body.data.id, direction: 'outbound', body: 'We are on it.' });
    expect(rows[0].payload.ticket).toMatchObject({ id, status: 'pending' });
    expect((await getTicket(api, id)).status).toBe('pending');
  });

  it('message_added and note_added are no trigger types: no workflow listens, the relay marks them delivered', async () => {
    for (const triggerType of ['message_added', 'note_added']) {
      expectValidation(await api.post('/api/workflows', { name: `On ${triggerType}`, triggerType }), 'triggerType');
    }
    const own = await createWorkspace(app.orm, [{ userId: 'agent-1' }]);
    const ownApi = client(app.baseUrl, own.key);
    const { id } = await createTicket(ownApi);
    await ownApi.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'Hello.' });
    await ownApi.post(`/api/v1/tickets/${id}/notes`, { authorId: 'agent-1', body: 'Internal.' });
    expect(await deliverEvents(app, own.workspaceId)).toBe(3);
    const rows = await events(id);
    expect(types(rows)).toEqual(['message_added', 'note_added', 'ticket_created']);
    for (const row of rows) expect(row).toMatchObject({ attempts: 1, lastError: null });
    expect(rows.every((row) => row.deliveredAt !== null)).toBe(true);
    const executions = await app.orm.em.fork().execute(`select count(*)::int as "n" from "executions" where "ticket_id" = ?`, [id]);
    expect(executions[0].n).toBe(0);
  });

  it.each(['pending', 'solved'])('adds a ticket_updated for the reopen of a %s ticket', async (status) => {
    const { id } = await createTicket(api);
    await setStatus(api, id, status);
    const rows = await eventsOf(id, () => reply(id));
    expect(types(rows)).toEqual(['message_received', 'ticket_updated']);
    const expected: Record<string, unknown> = { status: { from: status, to: 'open' } };
    if (status === 'solved') expected.resolutionType = { from: 'resolved_by_agent', to: null };
    expect(changesOf(rows.find((e) => e.type === 'ticket_updated')!)).toEqual(expected);
    expect(rows.find((e) => e.type === 'message_received')!.payload.ticket).toMatchObject({ status: 'open' });
  });

  it('writes message_received but no reopen for a closed ticket', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'closed');
    expect(types(await eventsOf(id, () => reply(id)))).toEqual(['message_received']);
  });
});

describe('failed writes leave no event and no change', () => {
  it('a PATCH refused with 403', async () => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    const rows = await eventsOf(id, async () => expectError(await api.patch(`/api/v1/tickets/${id}`, { status: 'closed', assignedTo: 'stranger' }), 403, 'forbidden'));
    expect(rows).toEqual([]);
    expect(await getTicket(api, id)).toEqual(before);
  });

  it('a PATCH refused with 400', async () => {
    const { id } = await createTicket(api);
    const rows = await eventsOf(id, async () => expectError(await api.patch(`/api/v1/tickets/${id}`, { status: 'closed', extra: true }), 400, 'validation_failed'));
    expect(rows).toEqual([]);
    expect((await getTicket(api, id)).status).toBe('open');
  });

  it('an outbound message refused with 409', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'pending');
    const rows = await eventsOf(id, async () =>
      expectError(await api.post(`/api/v1/tickets/${id}/messages`, { body: 'x', senderEmail: 'customer@example.com', direction: 'outbound' }), 409, 'outbound_not_allowed'),
    );
    expect(rows).toEqual([]);
    expect((await getTicket(api, id)).status).toBe('pending');
    expect((await allMessages(api, id)).total).toBe(1);
  });

  it('a create refused with 400', async () => {
    const own = await createWorkspace(app.orm);
    const res = await client(app.baseUrl, own.key).post('/api/v1/tickets', newTicket({ body: ' ' }));
    expectError(res, 400, 'validation_failed');
    expect(await outboxEvents(app.orm, { workspace: own.workspaceId })).toEqual([]);
  });
});

describe('events under concurrency', () => {
  it('records one change when ten identical PATCHes race', async () => {
    const { id } = await createTicket(api);
    const rows = await eventsOf(id, () => Promise.all(Array.from({ length: 10 }, () => api.patch(`/api/v1/tickets/${id}`, { priority: 'high' }))));
    expect(types(rows)).toEqual(['ticket_updated']);
    expect(changesOf(rows[0])).toEqual({ priority: { from: 'medium', to: 'high' } });
  });

  it('reopens once when ten customer replies race on a solved ticket', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'solved');
    const rows = await eventsOf(id, () => Promise.all(Array.from({ length: 10 }, () => reply(id))));
    expect(rows.filter((e) => e.type === 'message_received')).toHaveLength(10);
    expect(rows.filter((e) => e.type === 'ticket_updated')).toHaveLength(1);
  });
});
