// POST /api/workflows/:id/backtest: the workflow's current graph replayed over the workspace's
// recorded events of its trigger type in a window (a scheduled workflow: over the tickets its
// filter selects now), counting what it would have done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ACTOR } from '../../src/actor.ts';
import type { EventType } from '../../src/events/entity.ts';
import { eventsInsert } from '../../src/events/outbox.ts';
import { writeTogether } from '../../src/common/sql.ts';
import { ticketContext } from '../../src/tickets/context.ts';
import { readTicket } from '../../src/tickets/store.ts';
import { client, type Client, createWorkspace, newWorkspace, startTestApp, type TestApp, type TestWorkspace } from '../helpers/app.ts';
import { expectError, expectOnly, expectValidation, keysOf } from '../helpers/expect.ts';
import { createTicket, createWorkflow, expectStatus, setStatus } from '../helpers/api.ts';
import { actionNode, conditionNode, edge, type Json, triggerNode } from '../helpers/graphs.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

/** Records an event of the ticket at `at`, as the API would have written it then. */
async function recordAt(ws: TestWorkspace, ticketId: string, type: EventType, at: Date, payload: Json = {}): Promise<string> {
  const em = app.orm.em.fork();
  const ticket = ticketContext(await readTicket(em, ws.workspaceId, ticketId));
  await writeTogether(em, [eventsInsert([{ workspaceId: ws.workspaceId, type, ticketId, payload: { ticket, ...payload }, actor: API_ACTOR, at }])]);
  const [row] = await em.getConnection().execute('select id from outbox_events where workspace_id = ? and ticket_id = ? and created_at = ? order by id desc limit 1', [ws.workspaceId, ticketId, at]);
  return row.id as string;
}

const toPending = { changes: { status: { from: 'open', to: 'pending' } } };
const toHigh = { changes: { priority: { from: 'medium', to: 'high' } } };

/** "Close pending tickets": when a ticket becomes pending, close it and tell the customer. */
const closePending = {
  triggerType: 'ticket_updated',
  workflowJson: {
    nodes: [
      triggerNode('ticket_updated', 'updated'),
      conditionNode('to-pending', { field: 'status', operator: 'changed_to', value: 'pending' }),
      actionNode('close', { actionType: 'set_status', status: 'closed' }),
      actionNode('tell', { actionType: 'send_reply', body: 'Closed "{{ticket.subject}}".' }),
    ],
    edges: [edge('updated', 'to-pending'), edge('to-pending', 'close', 'true'), edge('close', 'tell')],
  },
};

describe('POST /api/workflows/:id/backtest', () => {
  let ws: TestWorkspace;
  let api: Client;
  let workflowId: string;
  const events: Record<string, { id: string; ticketId: string }> = {};
  beforeAll(async () => {
    ws = await createWorkspace(app.orm);
    api = client(app.baseUrl, ws.key);
    workflowId = (await createWorkflow(api, closePending)).id;
    const [a, b, c] = [await createTicket(api, { subject: 'A' }), await createTicket(api, { subject: 'B' }), await createTicket(api, { subject: 'C' })];
    events.old = { id: await recordAt(ws, a.id, 'ticket_updated', daysAgo(10), toPending), ticketId: a.id };
    events.b = { id: await recordAt(ws, b.id, 'ticket_updated', daysAgo(3), toPending), ticketId: b.id };
    events.high = { id: await recordAt(ws, c.id, 'ticket_updated', daysAgo(3 - 0.01), toHigh), ticketId: c.id };
    events.c = { id: await recordAt(ws, c.id, 'ticket_updated', daysAgo(1), toPending), ticketId: c.id };
    // Events of other types and of other workspaces are not replayed.
    await recordAt(ws, a.id, 'ticket_closed', daysAgo(2));
    const stranger = await createWorkspace(app.orm);
    const theirs = await createTicket(client(app.baseUrl, stranger.key));
    await recordAt(stranger, theirs.id, 'ticket_updated', daysAgo(2), toPending);
  });

  const backtest = (body?: unknown) => api.post(`/api/workflows/${workflowId}/backtest`, body);

  it('replays the last 7 days by default: counts, the actions that would have run, and a sample of the matched events', async () => {
    const res = await backtest({});
    expectStatus(res, 200);
    expectOnly(res.body, 'backtest', ['actionsWouldRun', 'assumptions', 'eventsExamined', 'matched', 'sample']);
    const { eventsExamined, matched, actionsWouldRun, sample, assumptions } = res.body.backtest;
    // This graph has no wait: the only assumption is which ticket each event is replayed on.
    expect(assumptions).toEqual(['Each event is replayed on the ticket as the event recorded it, not as it is now.']);
    expect({ eventsExamined, matched, actionsWouldRun }).toEqual({ eventsExamined: 3, matched: 2, actionsWouldRun: { set_status: 2, send_reply: 2 } });
    expect(sample.map((s: Json) => [s.eventId, s.ticketId])).toEqual([
      [events.b.id, events.b.ticketId],
      [events.c.id, events.c.ticketId],
    ]);
    expect(keysOf(sample[0])).toEqual(['at', 'eventId', 'steps', 'ticketId']);
    expect(Date.parse(sample[0].at)).toBeLessThan(Date.parse(sample[1].at));
    expect(sample[0].steps).toEqual([
      { nodeId: 'updated', status: 'passed' },
      { nodeId: 'to-pending', status: 'passed', result: true },
      { nodeId: 'close', status: 'completed', action: { actionType: 'set_status', status: 'closed' } },
      { nodeId: 'tell', status: 'completed', action: { actionType: 'send_reply', body: 'Closed "B".' } },
    ]);
  });

  it('takes a body-less request as the defaults', async () => {
    const res = await api.post(`/api/workflows/${workflowId}/backtest`);
    expectStatus(res, 200);
    expect(res.body.backtest.eventsExamined).toBe(3);
  });

  it('replays only the window [since, until)', async () => {
    const all = (await backtest({ since: daysAgo(12).toISOString() })).body.backtest;
    expect({ examined: all.eventsExamined, matched: all.matched }).toEqual({ examined: 4, matched: 3 });
    const middle = (await backtest({ since: daysAgo(4).toISOString(), until: daysAgo(2).toISOString() })).body.backtest;
    expect({ examined: middle.eventsExamined, matched: middle.matched }).toEqual({ examined: 2, matched: 1 });
    expect(middle.sample.map((s: Json) => s.eventId)).toEqual([events.b.id]);
    const before = (await backtest({ since: daysAgo(30).toISOString().slice(0, 10), until: daysAgo(9).toISOString() })).body.backtest;
    expect(before.sample.map((s: Json) => s.eventId)).toEqual([events.old.id]);
  });

  it('replays at most `limit` events, oldest first', async () => {
    const res = await backtest({ since: daysAgo(12).toISOString(), limit: 2 });
    expectStatus(res, 200);
    expect(res.body.backtest).toMatchObject({ eventsExamined: 2, matched: 2 });
    expect(res.body.backtest.sample.map((s: Json) => s.eventId)).toEqual([events.old.id, events.b.id]);
  });

  it('answers 400 with details for a bad since, until or limit', async () => {
    expectValidation(await backtest({ since: 'last week' }), 'since', /ISO 8601/);
    expectValidation(await backtest({ until: '2026-13-01' }), 'until', /ISO 8601/);
    expectValidation(await backtest({ since: '2026-01-01T10:00' }), 'since', /ISO 8601/);
    expectValidation(await backtest({ since: daysAgo(1).toISOString(), until: daysAgo(2).toISOString() }), 'since', /before until/);
    expectValidation(await backtest({ since: new Date(Date.now() + DAY).toISOString() }), 'since', /before until/);
    for (const limit of [0, 1001, 1.5, '10', null]) expectValidation(await backtest({ limit }), 'limit', /integer from 1 to 1000/);
    expectValidation(await backtest({ window: 'week' }), 'window');
  });

  it('answers 404 for a workflow of another workspace', async () => {
    const stranger = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    expectError(await stranger.post(`/api/workflows/${workflowId}/backtest`, {}), 404, 'not_found');
  });
});

describe('POST /api/workflows/:id/backtest over many events', () => {
  it('reads every event of the window once, across pages, even with equal timestamps', async () => {
    const { ws, api } = await newWorkspace(app);
    const workflow = await createWorkflow(api, {
      triggerType: 'ticket_created',
      workflowJson: { nodes: [triggerNode('ticket_created', 'created'), actionNode('tag', { actionType: 'add_tag', tag: 'seen' })], edges: [edge('created', 'tag')] },
    });
    const ticket = await createTicket(api); // one ticket_created now
    const at = daysAgo(2);
    const em = app.orm.em.fork();
    const payload = JSON.stringify({ ticket: ticketContext(await readTicket(em, ws.workspaceId, ticket.id)), cause: null });
    await em.getConnection().execute(
      `insert into outbox_events (id, workspace_id, type, ticket_id, payload, created_at, attempts, delivered_at)
       select gen_random_uuid(), ?, 'ticket_created', ?, ?::jsonb, ?, 1, ? from generate_series(1, 250)`,
      [ws.workspaceId, ticket.id, payload, at, at],
    );
    const res = await api.post(`/api/workflows/${workflow.id}/backtest`, { limit: 1000 });
    expectStatus(res, 200);
    expect(res.body.backtest).toMatchObject({ eventsExamined: 251, matched: 251, actionsWouldRun: { add_tag: 251 } });
    expect(res.body.backtest.sample).toHaveLength(20);
    expect(new Set(res.body.backtest.sample.map((s: Json) => s.eventId)).size).toBe(20);
    const capped = await api.post(`/api/workflows/${workflow.id}/backtest`, { limit: 120 });
    expect(capped.body.backtest.eventsExamined).toBe(120);
  });
});

describe('POST /api/workflows/:id/backtest of a scheduled workflow', () => {
  it('with a ticket filter, replays over the tickets the filter selects now', async () => {
    const { ws, api } = await newWorkspace(app);
    const workflow = await createWorkflow(api, {
      triggerType: 'scheduled',
      workflowJson: {
        nodes: [
          triggerNode('scheduled', 'nightly', { intervalSeconds: 86_400, ticketFilter: { status: ['pending'] } }),
          conditionNode('not-vip', { field: 'ticket.subject', operator: 'not_contains', value: 'vip' }),
          actionNode('close', { actionType: 'set_status', status: 'closed' }),
        ],
        edges: [edge('nightly', 'not-vip'), edge('not-vip', 'close', 'true')],
      },
    });
    const pending = [await createTicket(api, { subject: 'one' }), await createTicket(api, { subject: 'two' }), await createTicket(api, { subject: 'vip three' })];
    for (const t of pending) await setStatus(api, t.id, 'pending');
    await createTicket(api, { subject: 'still open' });

    const res = await api.post(`/api/workflows/${workflow.id}/backtest`, {});
    expectStatus(res, 200);
    const { eventsExamined, matched, actionsWouldRun, sample } = res.body.backtest;
    expect({ eventsExamined, matched, actionsWouldRun }).toEqual({ eventsExamined: 3, matched: 2, actionsWouldRun: { set_status: 2 } });
    const closable = pending.slice(0, 2).map((t) => t.id).sort();
    expect(sample.map((s: Json) => s.ticketId)).toEqual(closable);
    expect(sample.every((s: Json) => s.eventId === null)).toBe(true);
  });
});
