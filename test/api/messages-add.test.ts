import { describe, expect, it } from 'vitest';
import { Workspace } from '../../src/workspaces/entity.ts';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, ISO_UTC, keysOf, MESSAGE_FIELDS, sleep, UUID } from '../helpers/expect.ts';
import { allMessages, createTicket, getTicket, setStatus } from '../helpers/api.ts';

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'agent-1' }]);

const CUSTOMER = 'customer@example.com';
const reply = (overrides: Record<string, unknown> = {}) => ({ body: 'Any news?', senderEmail: CUSTOMER, ...overrides });
const add = (ticketId: string, body: unknown) => api.post(`/api/v1/tickets/${ticketId}/messages`, body);

describe('POST /api/v1/tickets/:id/messages', () => {
  it('answers 201 { data: Message, meta: { messageAddedEvent } } with exactly the eight message fields', async () => {
    const { id } = await createTicket(api);
    const res = await add(id, reply({ senderName: 'Casey', bodyHtml: '<p>Any news?</p>' }));
    expect(res.status).toBe(201);
    expect(keysOf(res.body)).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ messageAddedEvent: 'emitted' });
    expect(keysOf(res.body.data)).toEqual(MESSAGE_FIELDS);
    expect(res.body.data).toMatchObject({
      ticketId: id,
      direction: 'inbound',
      senderEmail: CUSTOMER,
      senderName: 'Casey',
      body: 'Any news?',
      bodyHtml: '<p>Any news?</p>',
    });
    expect(res.body.data.id).toMatch(UUID);
    expect(res.body.data.createdAt).toMatch(ISO_UTC);
    const listed = await allMessages(api, id);
    expect(listed.total).toBe(2);
    expect(listed.data[1]).toEqual(res.body.data);
  });

  it('defaults direction to inbound and senderName, bodyHtml to null', async () => {
    const { id } = await createTicket(api);
    const res = await add(id, reply());
    expect(res.body.data).toMatchObject({ direction: 'inbound', senderName: null, bodyHtml: null });
    expect((await add(id, reply({ direction: 'inbound', bodyHtml: null, senderName: null }))).status).toBe(201);
  });

  it('answers 404 for an unknown or malformed ticket id', async () => {
    expectError(await add('00000000-0000-4000-8000-000000000000', reply()), 404, 'not_found');
    expectError(await add('nope', reply()), 404, 'not_found');
  });
});

describe('POST /api/v1/tickets/:id/messages: field rules', () => {
  it('accepts a body of 100,000 code points and rejects 100,001', async () => {
    const { id } = await createTicket(api);
    expect((await add(id, reply({ body: '😀'.repeat(100_000) }))).status).toBe(201);
    expect((await add(id, reply({ body: 'b'.repeat(100_000) }))).status).toBe(201);
    expectValidation(await add(id, reply({ body: 'b'.repeat(100_001) })), 'body');
    expectValidation(await add(id, reply({ body: '😀'.repeat(100_001) })), 'body');
  });

  it('accepts bodyHtml of 200,000 code points and rejects 200,001', async () => {
    const { id } = await createTicket(api);
    const html = '😀'.repeat(200_000);
    const ok = await add(id, reply({ bodyHtml: html }));
    expect(ok.status).toBe(201);
    expect(ok.body.data.bodyHtml).toBe(html);
    expectValidation(await add(id, reply({ bodyHtml: 'h'.repeat(200_001) })), 'bodyHtml', /at most 200000 characters/);
  });

  it('accepts senderEmail of 320 characters and rejects 321', async () => {
    const { id } = await createTicket(api);
    const email = (n: number) => `${'s'.repeat(64)}@${'d'.repeat(n - 69)}.com`;
    expect((await add(id, reply({ senderEmail: email(320) }))).body.data.senderEmail).toBe(email(320));
    expectValidation(await add(id, reply({ senderEmail: email(321) })), 'senderEmail');
  });

  it('stores senderEmail trimmed', async () => {
    const { id } = await createTicket(api);
    expect((await add(id, reply({ senderEmail: '  someone@example.com ' }))).body.data.senderEmail).toBe('someone@example.com');
  });

  it('accepts senderName of 200 code points and rejects 201', async () => {
    const { id } = await createTicket(api);
    expect((await add(id, reply({ senderName: '😀'.repeat(200) }))).status).toBe(201);
    expectValidation(await add(id, reply({ senderName: 'n'.repeat(201) })), 'senderName', /at most 200 characters/);
  });

  it.each([
    ['body', ''],
    ['body', '  \n\t '],
    ['body', null],
    ['body', 5],
    ['body', 'a\u0000b'],
    ['senderEmail', 'no-at-sign'],
    ['senderEmail', 'two@@example.com'],
    ['senderEmail', 'with space@example.com'],
    ['senderEmail', ''],
    ['senderEmail', null],
    ['senderName', 7],
    ['body', 'lone \ud800 surrogate'],
    ['senderName', 'a\u0000b'],
    ['senderName', '\udc00'],
    ['senderEmail', 'x\ud800@example.com'],
    ['bodyHtml', 7],
    ['bodyHtml', '<p>\u0000</p>'],
    ['bodyHtml', '<p>\ud83d</p>'],
    ['direction', 'sideways'],
    ['direction', null],
  ])('rejects %s %j with 400', async (field, value) => {
    const { id } = await createTicket(api);
    expectValidation(await add(id, reply({ [field]: value })), field);
    expect((await allMessages(api, id)).total).toBe(1);
  });

  it.each(['body', 'senderEmail'])('requires %s', async (field) => {
    const { id } = await createTicket(api);
    const partial: Record<string, unknown> = reply();
    delete partial[field];
    expectValidation(await add(id, partial), field);
  });

  it.each(['ticketId', 'createdAt', 'id', 'status', 'foo'])('rejects the unlisted field %s, naming it', async (field) => {
    const { id } = await createTicket(api);
    expectValidation(await add(id, reply({ [field]: 'x' })), field);
    expect((await allMessages(api, id)).total).toBe(1);
  });
});

describe('POST /api/v1/tickets/:id/messages: outbound', () => {
  it('refuses direction outbound with 409 outbound_not_allowed and saves nothing', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'pending');
    const before = await getTicket(api, id);
    expectError(await add(id, reply({ direction: 'outbound' })), 409, 'outbound_not_allowed');
    expectError(await add(id, reply({ direction: 'outbound', senderEmail: 'agent@desk.example' })), 409, 'outbound_not_allowed');
    const messages = await allMessages(api, id);
    expect(messages.total).toBe(1);
    expect(messages.data).toHaveLength(1);
    expect(await getTicket(api, id)).toEqual(before);
  });
});

describe('POST /api/v1/tickets/:id/messages: TICKET_MESSAGE_ADDED', () => {
  it.each([CUSTOMER, 'CUSTOMER@Example.COM', '  customer@example.com  ', '\tCustomer@example.com'])(
    'is emitted for the customer written as %j',
    async (senderEmail) => {
      const { id } = await createTicket(api);
      expect((await add(id, reply({ senderEmail }))).body.meta.messageAddedEvent).toBe('emitted');
    },
  );

  it('is emitted when the ticket was created with a differently written address', async () => {
    const { id } = await createTicket(api, { customerEmail: '  Mixed.Case@Example.com ' });
    expect((await add(id, reply({ senderEmail: 'mixed.case@example.com' }))).body.meta.messageAddedEvent).toBe('emitted');
  });

  it('is skipped for anyone else; the message is still saved and the ticket keeps its status', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'pending');
    const res = await add(id, reply({ senderEmail: 'someone.else@example.com', body: 'I am not the customer' }));
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({ messageAddedEvent: 'skipped_sender_mismatch' });
    const messages = await allMessages(api, id);
    expect(messages.total).toBe(2);
    expect(messages.data[1]).toEqual(res.body.data);
    expect((await getTicket(api, id)).status).toBe('pending');
  });

  it.each(['customer@example.co', 'customer@example.com.evil', 'xcustomer@example.com'])('is skipped for the near miss %s', async (senderEmail) => {
    const { id } = await createTicket(api);
    expect((await add(id, reply({ senderEmail }))).body.meta.messageAddedEvent).toBe('skipped_sender_mismatch');
  });
});

describe('POST /api/v1/tickets/:id/messages: reopening on a customer reply', () => {
  it.each(['pending', 'solved'])('moves a %s ticket back to open and clears resolutionType', async (status) => {
    const { id } = await createTicket(api);
    await setStatus(api, id, status);
    await add(id, reply());
    const ticket = await getTicket(api, id);
    expect(ticket.status).toBe('open');
    expect(ticket.resolutionType).toBeNull();
  });

  it('leaves a closed ticket closed, resolution kept', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'closed');
    expect((await add(id, reply())).body.meta.messageAddedEvent).toBe('emitted');
    expect(await getTicket(api, id)).toMatchObject({ status: 'closed', resolutionType: 'resolved_by_agent' });
  });

  it.each(['open', 'escalated'])('leaves an %s ticket as it is', async (status) => {
    const { id } = await createTicket(api);
    await setStatus(api, id, status);
    await add(id, reply());
    expect((await getTicket(api, id)).status).toBe(status);
  });

  it.each(['pending', 'solved'])('never reopens a %s ticket for another sender', async (status) => {
    const { id } = await createTicket(api);
    await setStatus(api, id, status);
    await add(id, reply({ senderEmail: 'agent@desk.example' }));
    expect((await getTicket(api, id)).status).toBe(status);
  });

  it('leaves the status alone in a workspace that turned reopening off, but still emits', async () => {
    const quiet = await createWorkspace(app.orm);
    const em = app.orm.em.fork();
    await em.nativeUpdate(Workspace, { id: quiet.workspaceId }, { reopenOnCustomerReply: false });
    const quietApi = client(app.baseUrl, quiet.key);
    const { id } = await createTicket(quietApi);
    await setStatus(quietApi, id, 'solved');
    const res = await quietApi.post(`/api/v1/tickets/${id}/messages`, reply());
    expect(res.body.meta.messageAddedEvent).toBe('emitted');
    expect(await getTicket(quietApi, id)).toMatchObject({ status: 'solved', resolutionType: 'resolved_by_agent' });
  });

  it('keeps the assignee when it reopens', async () => {
    const { id } = await createTicket(api);
    await api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'agent-1', status: 'solved' });
    await add(id, reply());
    expect(await getTicket(api, id)).toMatchObject({ status: 'open', assignedTo: 'agent-1' });
  });
});

describe('POST /api/v1/tickets/:id/messages: updatedAt', () => {
  it.each([
    ['a customer reply', CUSTOMER],
    ['a message from someone else', 'someone.else@example.com'],
  ])('moves forward on %s', async (_what, senderEmail) => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    await sleep(5);
    const { body } = await add(id, reply({ senderEmail }));
    const after = await getTicket(api, id);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(after.updatedAt).toBe(body.data.createdAt);
  });

  it('moves forward on a reopen', async () => {
    const { id } = await createTicket(api);
    const solved = await setStatus(api, id, 'solved');
    await sleep(5);
    await add(id, reply());
    const reopened = await getTicket(api, id);
    expect(reopened.status).toBe('open');
    expect(Date.parse(reopened.updatedAt)).toBeGreaterThan(Date.parse(solved.updatedAt));
  });
});
