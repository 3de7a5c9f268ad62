import { beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, type Client, createWorkspace, type TestWorkspace, useTestApp } from '../helpers/app.ts';
import { expectError, expectOnly, expectValidation, sleep, TICKET_FIELDS } from '../helpers/expect.ts';
import { createTicket, getTicket, setStatus } from '../helpers/api.ts';

const STATUSES = ['open', 'pending', 'escalated', 'solved', 'closed'];
const PRIORITIES = ['low', 'medium', 'high', 'urgent'];
const LONG_MEMBER = 'u'.repeat(200);

const app = useTestApp();
let ws: TestWorkspace;
let api: Client;
beforeAll(async () => {
  ws = await createWorkspace(app.orm, [
    { userId: 'agent-1', role: 'member' },
    { userId: 'boss', role: 'admin' },
    { userId: LONG_MEMBER },
  ]);
  api = client(app.baseUrl, ws.key);
});

const patch = (id: string, body: unknown) => api.patch(`/api/v1/tickets/${id}`, body);

describe('PATCH /api/v1/tickets/:id', () => {
  it('answers 200 { data: Ticket } with the ticket after the update', async () => {
    const { id } = await createTicket(api);
    const res = await patch(id, { status: 'pending', priority: 'high', assignedTo: 'agent-1' });
    expect(res.status).toBe(200);
    expectOnly(res.body, 'data', TICKET_FIELDS);
    expect(res.body.data).toMatchObject({ id, status: 'pending', priority: 'high', assignedTo: 'agent-1' });
    expect(await getTicket(api, id)).toEqual(res.body.data);
  });

  it.each(PRIORITIES)('sets priority %s', async (priority) => {
    const { id } = await createTicket(api);
    expect((await patch(id, { priority })).body.data.priority).toBe(priority);
    expect((await getTicket(api, id)).priority).toBe(priority);
  });

  it('lets any status follow any other', async () => {
    const { id } = await createTicket(api);
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        await setStatus(api, id, from);
        const res = await patch(id, { status: to });
        expect(res.status, `${from} → ${to}`).toBe(200);
        expect(res.body.data.status, `${from} → ${to}`).toBe(to);
      }
    }
  });

  it.each([
    ['status', 'reopened'],
    ['status', 'OPEN'],
    ['status', null],
    ['priority', 'critical'],
    ['priority', 3],
    ['priority', null],
  ])('rejects %s %j and changes nothing', async (field, value) => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    expectValidation(await patch(id, { [field]: value }), field);
    expect(await getTicket(api, id)).toEqual(before);
  });

  it('changes updatedAt and nothing it was not asked to', async () => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    await sleep(5);
    const after = (await patch(id, { priority: 'urgent' })).body.data;
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(after).toEqual({ ...before, priority: 'urgent', updatedAt: after.updatedAt });
  });
});

describe('PATCH /api/v1/tickets/:id: the body', () => {
  it.each([
    ['an empty object', {}],
    ['only unknown fields', { foo: 1 }],
  ])('rejects %s with 400 validation_failed', async (_what, body) => {
    const { id } = await createTicket(api);
    expectError(await patch(id, body), 400, 'validation_failed');
  });

  it('rejects a missing body with 400 validation_failed', async () => {
    const { id } = await createTicket(api);
    expectError(await api.patch(`/api/v1/tickets/${id}`), 400, 'validation_failed');
  });

  it.each(['subject', 'customerEmail', 'tags', 'resolutionType', 'language', 'foo'])(
    'rejects the unlisted field %s, naming it, and applies none of the others',
    async (field) => {
      const { id } = await createTicket(api);
      const before = await getTicket(api, id);
      expectValidation(await patch(id, { status: 'pending', [field]: 'x' }), field);
      expect(await getTicket(api, id)).toEqual(before);
    },
  );
});

describe('PATCH /api/v1/tickets/:id: hostile keys', () => {
  const hostile = (key: string) => `{"${key}":{"status":"closed","priority":"urgent"},"priority":"low"}`;

  it('rejects a __proto__ key, naming it, and applies nothing', async () => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    expectValidation(await api.patch(`/api/v1/tickets/${id}`, hostile('__proto__'), { 'content-type': 'application/json' }), '__proto__');
    expect(await getTicket(api, id)).toEqual(before);
  });

  it('rejects a constructor key, naming it, and applies nothing', async () => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    expectValidation(await api.patch(`/api/v1/tickets/${id}`, hostile('constructor'), { 'content-type': 'application/json' }), 'constructor');
    expect(await getTicket(api, id)).toEqual(before);
  });
});

describe('PATCH /api/v1/tickets/:id: assignedTo', () => {
  it.each([
    ['null', null],
    ['empty', ''],
    ['whitespace only', '   '],
    ['201 characters', 'u'.repeat(201)],
    ['not a string', 42],
  ])('rejects an assignee that is %s with 400', async (_what, assignedTo) => {
    const { id } = await createTicket(api);
    expectValidation(await patch(id, { assignedTo }), 'assignedTo');
    expect((await getTicket(api, id)).assignedTo).toBeNull();
  });

  it.each([
    ['a member', 'agent-1'],
    ['an admin', 'boss'],
    ['a member with a 200-character id', LONG_MEMBER],
    ['the AI agent', 'ai'],
  ])('assigns %s', async (_who, assignedTo) => {
    const { id } = await createTicket(api);
    const res = await patch(id, { assignedTo });
    expect(res.status).toBe(200);
    expect(res.body.data.assignedTo).toBe(assignedTo);
    expect((await getTicket(api, id)).assignedTo).toBe(assignedTo);
  });

  it('refuses a valid id that is no member with 403 forbidden', async () => {
    const { id } = await createTicket(api);
    expectError(await patch(id, { assignedTo: 'stranger' }), 403, 'forbidden');
    expect((await getTicket(api, id)).assignedTo).toBeNull();
  });

  it('says in the 403 the admin command that makes the user a member', async () => {
    const { id } = await createTicket(api);
    const res = await patch(id, { assignedTo: 'stranger' });
    expectError(res, 403, 'forbidden');
    expect(res.body.error.message).toBe(
      `"stranger" is not a current member or admin of this workspace. An operator makes them one with: npm run admin -- member add --workspace ${ws.workspaceId} --user stranger`,
    );
    // A user id the shell would split is quoted, so that the command can be pasted as it is.
    const spaced = await patch(id, { assignedTo: "Jo O'Neil" });
    expect(spaced.body.error.message).toMatch(/--user 'Jo O'\\''Neil'$/);
  });

  it('refuses a member of another workspace with 403', async () => {
    await createWorkspace(app.orm, [{ userId: 'elsewhere-agent', role: 'admin' }]);
    const { id } = await createTicket(api);
    expectError(await patch(id, { assignedTo: 'elsewhere-agent' }), 403, 'forbidden');
  });

  it('refuses a member once removed from the workspace', async () => {
    const workspaces = new WorkspaceService(app.orm.em.fork());
    await workspaces.addMember(ws.workspaceId, 'leaver', 'member');
    const { id } = await createTicket(api);
    expect((await patch(id, { assignedTo: 'leaver' })).status).toBe(200);
    expect(await workspaces.removeMember(ws.workspaceId, 'leaver')).toBe(true);
    const other = await createTicket(api);
    expectError(await patch(other.id, { assignedTo: 'leaver' }), 403, 'forbidden');
  });

  it('applies nothing of a request refused with 403', async () => {
    const { id } = await createTicket(api);
    const before = await getTicket(api, id);
    expectError(await patch(id, { status: 'solved', priority: 'low', assignedTo: 'stranger' }), 403, 'forbidden');
    expect(await getTicket(api, id)).toEqual(before);
  });
});

describe('PATCH /api/v1/tickets/:id: resolutionType', () => {
  it.each(['solved', 'closed'])('becomes resolved_by_agent when a human-handled ticket is %s', async (status) => {
    const unassigned = await createTicket(api);
    expect((await setStatus(api, unassigned.id, status)).resolutionType).toBe('resolved_by_agent');
    const assigned = await createTicket(api);
    await patch(assigned.id, { assignedTo: 'agent-1' });
    expect((await setStatus(api, assigned.id, status)).resolutionType).toBe('resolved_by_agent');
  });

  it.each(['solved', 'closed'])('becomes resolved_by_ai when the AI agent holds a ticket that is %s', async (status) => {
    const { id } = await createTicket(api);
    await patch(id, { assignedTo: 'ai' });
    expect((await setStatus(api, id, status)).resolutionType).toBe('resolved_by_ai');
  });

  it('becomes resolved_by_ai when assignment to ai and solving come in one request', async () => {
    const { id } = await createTicket(api);
    expect((await patch(id, { assignedTo: 'ai', status: 'solved' })).body.data.resolutionType).toBe('resolved_by_ai');
  });

  it('is kept when a solved ticket is closed, even after reassignment', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'solved');
    await patch(id, { assignedTo: 'ai' });
    const closed = await setStatus(api, id, 'closed');
    expect(closed.resolutionType).toBe('resolved_by_agent');
  });

  it.each(['open', 'pending', 'escalated'])('is cleared when the ticket moves back to %s', async (status) => {
    for (const from of ['solved', 'closed']) {
      const { id } = await createTicket(api);
      await setStatus(api, id, from);
      const back = await setStatus(api, id, status);
      expect(back.resolutionType, `${from} → ${status}`).toBeNull();
      expect((await getTicket(api, id)).resolutionType).toBeNull();
    }
  });

  it('stays null while the ticket is never solved or closed', async () => {
    const { id } = await createTicket(api);
    for (const status of ['pending', 'escalated', 'open']) expect((await setStatus(api, id, status)).resolutionType).toBeNull();
  });
});

describe('PATCH /api/v1/tickets/:id: unknown tickets', () => {
  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '123'])('answers 404 for %s', async (id) => {
    expectError(await patch(id, { status: 'open' }), 404, 'not_found');
  });
});
