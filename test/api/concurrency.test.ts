import { describe, expect, it } from 'vitest';
import { newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { allMessages, createTicket, getTicket, setStatus } from '../helpers/api.ts';

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'agent-1' }, { userId: 'agent-2' }]);

const ids = (messages: Array<{ id: string }>) => messages.map((m) => m.id);

describe('concurrent messages on one ticket', () => {
  it('keeps all 51 in one order that paging with before walks exactly once', async () => {
    const { id } = await createTicket(api, { body: 'initial' });
    const posted = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api.post(`/api/v1/tickets/${id}/messages`, { body: `concurrent ${i}`, senderEmail: i % 2 ? 'customer@example.com' : 'other@example.com' }),
      ),
    );
    expect(posted.map((r) => r.status)).toEqual(Array(50).fill(201));

    const all = await allMessages(api, id);
    expect(all.total).toBe(51);
    expect(all.truncated).toBe(false);
    expect(all.data[0].body).toBe('initial');
    expect(new Set(ids(all.data)).size).toBe(51);
    expect(new Set(ids(all.data.slice(1)))).toEqual(new Set(posted.map((r) => r.body.data.id)));
    expect(ids((await allMessages(api, id)).data)).toEqual(ids(all.data));

    // Walk back from the newest in windows of 7, each window oldest-first.
    const walked: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await api.get(`/api/v1/tickets/${id}/messages?limit=7${before ? `&before=${before}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(51);
      walked.unshift(...ids(res.body.data));
      if (!res.body.truncated) break;
      before = res.body.data[0].id;
    }
    expect(walked).toEqual(ids(all.data));
  });

  it('reopens a solved ticket once and keeps every reply when customers reply at once', async () => {
    const { id } = await createTicket(api);
    await setStatus(api, id, 'solved');
    const posted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.post(`/api/v1/tickets/${id}/messages`, { body: `reply ${i}`, senderEmail: 'customer@example.com' })),
    );
    expect(posted.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(posted.every((r) => r.body.meta.messageAddedEvent === 'emitted')).toBe(true);
    expect(await getTicket(api, id)).toMatchObject({ status: 'open', resolutionType: null });
    expect((await allMessages(api, id)).total).toBe(11);
  });
});

describe('concurrent updates of one ticket', () => {
  it('answers every one of 20 PATCHes with its own result and ends in the state of one of them', async () => {
    const { id } = await createTicket(api);
    const statuses = ['open', 'pending', 'escalated', 'solved', 'closed'];
    const priorities = ['low', 'medium', 'high', 'urgent'];
    const requests = Array.from({ length: 20 }, (_, i) => ({
      status: statuses[i % 5],
      priority: priorities[Math.floor(i / 5) % 4],
      assignedTo: i % 2 ? 'agent-1' : 'agent-2',
    }));
    const responses = await Promise.all(requests.map((body) => api.patch(`/api/v1/tickets/${id}`, body)));
    for (const [i, res] of responses.entries()) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject(requests[i]);
    }
    const final = await getTicket(api, id);
    const picked = { status: final.status, priority: final.priority, assignedTo: final.assignedTo };
    expect(requests).toContainEqual(picked);
    expect(final.resolutionType).toBe(['solved', 'closed'].includes(final.status) ? 'resolved_by_agent' : null);
  });

  it('never loses a field when PATCHes of different fields race', async () => {
    const { id } = await createTicket(api);
    const responses = await Promise.all([
      api.patch(`/api/v1/tickets/${id}`, { status: 'pending' }),
      api.patch(`/api/v1/tickets/${id}`, { priority: 'urgent' }),
      api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'agent-1' }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await getTicket(api, id)).toMatchObject({ status: 'pending', priority: 'urgent', assignedTo: 'agent-1' });
  });

  it('creates 20 tickets at once, each listed once', async () => {
    const { ws, api: own } = await newWorkspace(app);
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => own.post('/api/v1/tickets', { subject: `t${i}`, customerEmail: 'c@example.com', body: 'b' })));
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const list = await own.get('/api/v1/tickets?per_page=100');
    expect(list.body.pagination.total).toBe(20);
    expect(new Set(list.body.data.map((t: { id: string }) => t.id))).toEqual(new Set(created.map((r) => r.body.data.id)));
  });
});
