import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError } from '../helpers/expect.ts';
import { allMessages, createTicket, getTicket } from '../helpers/api.ts';

/** Workspace A owns a ticket; workspace B (with the same member id) tries to reach it. */
const app = useTestApp();
const { ws: a, api: apiA } = useWorkspace(app, [{ userId: 'shared-agent' }]);
const { ws: b, api: apiB } = useWorkspace(app, [{ userId: 'shared-agent' }]);
let ticket: any;
let messageId: string;
beforeAll(async () => {
  ticket = await createTicket(apiA, { subject: 'Secret subject of A', customerEmail: 'secret.customer@a.example' });
  messageId = (await allMessages(apiA, ticket.id)).data[0].id;
});

/** Nothing of A's ticket may appear in B's answers. */
function expectNoLeak(res: { body: unknown }) {
  const text = JSON.stringify(res.body);
  expect(text).not.toContain('Secret subject of A');
  expect(text).not.toContain('secret.customer@a.example');
  expect(text).not.toContain(messageId);
}

describe("another workspace's ticket", () => {
  it('is 404 on every ticket endpoint, exactly like an id that does not exist, and left untouched', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const calls = (id: string) =>
      [
        ['GET', `/api/v1/tickets/${id}`, undefined],
        ['PATCH', `/api/v1/tickets/${id}`, { status: 'closed', priority: 'urgent', assignedTo: 'shared-agent' }],
        ['GET', `/api/v1/tickets/${id}/messages`, undefined],
        ['GET', `/api/v1/tickets/${id}/messages?before=${messageId}&limit=5`, undefined],
        ['POST', `/api/v1/tickets/${id}/messages`, { body: 'Injected', senderEmail: 'secret.customer@a.example' }],
      ] as const;
    const foreign = calls(ticket.id);
    const missing = calls(unknown);
    for (const [i, [method, path, body]] of foreign.entries()) {
      const res = await apiB.call(method, path, body);
      expectError(res, 404, 'not_found');
      expectNoLeak(res);
      const [, missingPath, missingBody] = missing[i];
      expect(res.body, `${method} ${path}`).toEqual((await apiB.call(method, missingPath, missingBody)).body);
    }

    const now = await getTicket(apiA, ticket.id);
    expect(now).toMatchObject({ status: 'open', priority: 'medium', assignedTo: null });
    const messages = await allMessages(apiA, ticket.id);
    expect(messages.total).toBe(1);
    expect(messages.data.map((m: { body: string }) => m.body)).not.toContain('Injected');
  });

  it('never shows up in the other workspace\'s list, under any filter', async () => {
    await createTicket(apiB, { subject: 'B ticket' });
    for (const query of ['', '?status=open', '?per_page=100', `?workspace_id=${b.workspaceId}`]) {
      const res = await apiB.get(`/api/v1/tickets${query}`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((t: { subject: string }) => t.subject)).toEqual(['B ticket']);
      expect(res.body.pagination.total).toBe(1);
      expectNoLeak(res);
    }
  });

  it("refuses listing with A's workspace_id under B's key", async () => {
    const res = await apiB.get(`/api/v1/tickets?workspace_id=${a.workspaceId}`);
    expectError(res, 403, 'forbidden');
    expectNoLeak(res);
  });

  it("does not accept A's message id as a cursor on B's ticket", async () => {
    const own = await createTicket(apiB);
    const res = await apiB.get(`/api/v1/tickets/${own.id}/messages?before=${messageId}`);
    expectError(res, 400, 'validation_failed');
  });

  it('is still fully visible to its own workspace', async () => {
    expect((await getTicket(apiA, ticket.id)).subject).toBe('Secret subject of A');
    const list = await apiA.get('/api/v1/tickets');
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([ticket.id]);
  });
});
