import { describe, expect, it } from 'vitest';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, ISO_UTC, keysOf, outboxEvents, sleep, UUID } from '../helpers/expect.ts';
import { allMessages, expectStatus, getTicket, openTicket, setStatus } from '../helpers/api.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';

// Internal notes: POST and GET /api/v1/tickets/:id/notes (docs/api.md, "Internal notes").

const app = useTestApp();
const { ws, api } = useWorkspace(app, [{ userId: 'agent-1' }, { userId: 'lead', role: 'admin' }]);

const addNote = (ticketId: string, body: unknown, headers?: Record<string, string>) => api.post(`/api/v1/tickets/${ticketId}/notes`, body, headers);
const notesOf = async (ticketId: string) => {
  const res = await api.get(`/api/v1/tickets/${ticketId}/notes`);
  expectStatus(res, 200);
  expect(keysOf(res.body)).toEqual(['data']);
  return res.body.data as Array<Record<string, unknown>>;
};

describe('POST /api/v1/tickets/:id/notes', () => {
  it('answers 201 with the note: id, ticketId, authorId, body, createdAt', async () => {
    const ticketId = await openTicket(api);
    const res = await addNote(ticketId, { authorId: 'agent-1', body: 'Customer is on the Pro plan; check the SLA.' });
    expectStatus(res, 201);
    expect(keysOf(res.body)).toEqual(['data']);
    expect(keysOf(res.body.data)).toEqual(['authorId', 'body', 'createdAt', 'id', 'ticketId']);
    expect(res.body.data).toMatchObject({ ticketId, authorId: 'agent-1', body: 'Customer is on the Pro plan; check the SLA.' });
    expect(res.body.data.id).toMatch(UUID);
    expect(res.body.data.createdAt).toMatch(ISO_UTC);
  });

  it('lists notes oldest first, each as it was answered', async () => {
    const ticketId = await openTicket(api);
    const written = [];
    for (const [i, authorId] of ['agent-1', 'lead', 'agent-1', 'lead'].entries()) written.push((await addNote(ticketId, { authorId, body: `Note ${i}` })).body.data);
    expect(await notesOf(ticketId)).toEqual(written);
    expect(await notesOf(await openTicket(api))).toEqual([]);
  });

  it('is not a message: not listed, not sent, no customer-reply handling, the ticket left as it is', async () => {
    const ticketId = await openTicket(api);
    await setStatus(api, ticketId, 'pending');
    const before = await getTicket(api, ticketId);
    const eventsBefore = await outboxEvents(app.orm, { ticketId });
    await sleep(3);
    expectStatus(await addNote(ticketId, { authorId: 'agent-1', body: 'It started smoking this morning.' }), 201);
    expect(await getTicket(api, ticketId)).toEqual(before);
    const messages = await allMessages(api, ticketId);
    expect(messages.total).toBe(1);
    expect(messages.data.map((m) => m.body)).toEqual(['It started smoking this morning.']);
    const added = (await outboxEvents(app.orm, { ticketId })).slice(eventsBefore.length);
    expect(added.map((e) => e.type)).toEqual(['note_added']);
    const deliveries = await app.orm.em.fork().execute(`select count(*)::int as "n" from "mail_deliveries" where "ticket_id" = ?`, [ticketId]);
    expect(deliveries[0].n).toBe(0);
  });

  it('writes note_added with the ticket as other events carry it and the note as answered', async () => {
    const ticketId = await openTicket(api, { language: 'de' });
    const note = (await addNote(ticketId, { authorId: 'lead', body: 'Escalate if no answer by Friday.' })).body.data;
    const [event] = (await outboxEvents(app.orm, { ticketId })).filter((e) => e.type === 'note_added');
    expect(event).toMatchObject({ workspace: ws.workspaceId, ticketId, deliveredAt: null });
    expect(keysOf(event.payload)).toEqual(['cause', 'note', 'ticket']);
    expect(event.payload.note).toEqual(note);
    expect(event.payload.ticket).toMatchObject({ id: ticketId, status: 'open', language: 'de' });
    expect(event.payload.cause).toBeNull();
  });

  it('refuses an author who is not a current member or admin with 403, and writes nothing', async () => {
    const ticketId = await openTicket(api);
    expectError(await addNote(ticketId, { authorId: 'stranger', body: 'Hi' }), 403, 'forbidden');
    const other = await createWorkspace(app.orm, [{ userId: 'outsider' }]);
    expectError(await addNote(ticketId, { authorId: 'outsider', body: 'Hi' }), 403, 'forbidden');
    await new WorkspaceService(app.orm.em.fork()).addMember(ws.workspaceId, 'leaving', 'member');
    expectStatus(await addNote(ticketId, { authorId: 'leaving', body: 'Last day.' }), 201);
    await new WorkspaceService(app.orm.em.fork()).removeMember(ws.workspaceId, 'leaving');
    expectError(await addNote(ticketId, { authorId: 'leaving', body: 'Back?' }), 403, 'forbidden');
    expect((await notesOf(ticketId)).map((n) => n.body)).toEqual(['Last day.']);
    expect(other.workspaceId).not.toBe(ws.workspaceId);
  });

  it.each([
    ['authorId', { authorId: '', body: 'x' }],
    ['authorId', { authorId: '   ', body: 'x' }],
    ['authorId', { authorId: null, body: 'x' }],
    ['authorId', { authorId: ' agent-1', body: 'x' }],
    ['authorId', { authorId: 'a'.repeat(201), body: 'x' }],
    ['authorId', { body: 'x' }],
    ['body', { authorId: 'agent-1', body: '' }],
    ['body', { authorId: 'agent-1', body: ' \n\t ' }],
    ['body', { authorId: 'agent-1', body: 'x'.repeat(100_001) }],
    ['body', { authorId: 'agent-1', body: 7 }],
    ['body', { authorId: 'agent-1' }],
    ['bodyHtml', { authorId: 'agent-1', body: 'x', bodyHtml: '<p>x</p>' }],
    ['internal', { authorId: 'agent-1', body: 'x', internal: true }],
  ])('answers 400 naming %s for %j (before the 403 of a non-member)', async (path, body) => {
    const ticketId = await openTicket(api);
    expectValidation(await addNote(ticketId, body), path);
    expect(await notesOf(ticketId)).toEqual([]);
  });

  it('takes a body of 100,000 characters', async () => {
    const ticketId = await openTicket(api);
    expectStatus(await addNote(ticketId, { authorId: 'agent-1', body: '🙂'.repeat(100_000) }), 201);
  });

  it('answers 404 for an unknown ticket or one of another workspace, before looking at the body', async () => {
    expectError(await addNote(UNKNOWN_ID, {}), 404, 'not_found');
    expectError(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/notes`), 404, 'not_found');
    const other = await createWorkspace(app.orm, [{ userId: 'agent-1' }]);
    const otherApi = client(app.baseUrl, other.key);
    const theirs = await openTicket(otherApi);
    expectStatus(await otherApi.post(`/api/v1/tickets/${theirs}/notes`, { authorId: 'agent-1', body: 'Ours.' }), 201);
    expectError(await addNote(theirs, { authorId: 'agent-1', body: 'Peek' }), 404, 'not_found');
    expectError(await api.get(`/api/v1/tickets/${theirs}/notes`), 404, 'not_found');
  });

  it('is written once under an Idempotency-Key, the answer replayed', async () => {
    const ticketId = await openTicket(api);
    const headers = { 'Idempotency-Key': `note-${Math.random()}` };
    const first = await addNote(ticketId, { authorId: 'agent-1', body: 'Once.' }, headers);
    const again = await addNote(ticketId, { authorId: 'agent-1', body: 'Once.' }, headers);
    expectStatus(again, 201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await notesOf(ticketId)).toHaveLength(1);
  });
});
