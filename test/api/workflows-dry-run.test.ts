// POST /api/workflows/:id/dry-run and POST /api/workflows/dry-run: the path a run would take,
// the ticket changes and what it would send, with nothing done (test/engine/dry-run-read-only.test.ts
// checks that nothing at all is written or started).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createWorkspace, startTestApp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectOnly, expectValidation, ISO_UTC, outboxEvents } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { allMessages, createTicket, createWorkflow, expectStatus, getTicket, listExecutions, setStatus } from '../helpers/api.ts';
import { actionNode, chain, conditionNode, edge, type Json, raiseToUrgent, subjectIsUrgent, triggerNode } from '../helpers/graphs.ts';

let app: TestApp;
let api: Client;
let other: Client;
beforeAll(async () => {
  app = await startTestApp();
  api = client(app.baseUrl, (await createWorkspace(app.orm, [{ userId: 'agent-1' }])).key);
  other = client(app.baseUrl, (await createWorkspace(app.orm)).key);
});
afterAll(() => app.close());

const dryRun = (workflowId: string, body?: unknown) => api.post(`/api/workflows/${workflowId}/dry-run`, body);
const graph = (nodes: Json[], edges: Json[]) => ({ nodes, edges });

/** Urgent tickets: raise, tag, close, reply and notify; others: tag "routine". */
const urgentGraph = graph(
  [
    triggerNode('ticket_created', 'created'),
    subjectIsUrgent(),
    raiseToUrgent(),
    actionNode('tag', { actionType: 'add_tag', tag: 'lang-{{ticket.language}}' }),
    actionNode('close', { actionType: 'set_status', status: 'closed' }),
    actionNode('reply', { actionType: 'send_reply', body: 'Hi {{ticket.customerName}}, we closed "{{ticket.subject}}".', bodyHtml: '<p>Hi {{ticket.customerName}}</p>' }),
    actionNode('notify', {
      actionType: 'http_request',
      method: 'POST',
      url: 'https://hooks.example.com/tickets/{{ticket.id}}',
      headers: { 'x-priority': '{{ticket.priority}}' },
      body: { subject: '{{ticket.subject}}', status: '{{ticket.status}}' },
    }),
    actionNode('routine', { actionType: 'add_tag', tag: 'routine' }),
  ],
  [
    edge('created', 'is-urgent'),
    edge('is-urgent', 'raise', 'true'),
    edge('is-urgent', 'routine', 'false'),
    edge('raise', 'tag'),
    edge('tag', 'close'),
    edge('close', 'reply'),
    edge('reply', 'notify'),
  ],
);

describe('POST /api/workflows/:id/dry-run', () => {
  it('lists the path through the conditions with their results, the rendered actions, the changes and what would be sent, and does none of it', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    const ticket = await createTicket(api, { subject: 'URGENT: printer on fire', customerName: 'Dana', language: 'de' });
    const before = await getTicket(api, ticket.id);
    const eventsBefore = (await outboxEvents(app.orm, { ticketId: ticket.id })).length;

    const res = await dryRun(workflow.id, { ticketId: ticket.id });
    expectStatus(res, 200);
    expectOnly(res.body, 'dryRun', ['assumptions', 'at', 'changes', 'outbound', 'steps']);
    const { steps, changes, outbound, assumptions } = res.body.dryRun;
    // The request ends the run: nothing after it would look at the ticket again.
    expect(assumptions).toEqual([]);
    expect(steps.map((s: Json) => [s.nodeId, s.status])).toEqual([
      ['created', 'passed'],
      ['is-urgent', 'passed'],
      ['raise', 'completed'],
      ['tag', 'completed'],
      ['close', 'completed'],
      ['reply', 'completed'],
      ['notify', 'completed'],
    ]);
    expect(steps[1]).toEqual({ nodeId: 'is-urgent', status: 'passed', result: true });
    expect(steps[3].action).toEqual({ actionType: 'add_tag', tag: 'lang-de' });
    // Later nodes see the ticket as the earlier actions left it, as in a run.
    expect(steps[6].action).toMatchObject({ url: `https://hooks.example.com/tickets/${ticket.id}`, headers: { 'x-priority': 'urgent' }, body: { status: 'closed' } });
    expect(changes).toEqual({
      priority: { from: 'medium', to: 'urgent' },
      tags: { from: [], to: ['lang-de'] },
      status: { from: 'open', to: 'closed' },
      resolutionType: { from: null, to: 'resolved_by_automation' },
    });
    expect(outbound).toEqual([
      {
        nodeId: 'reply',
        type: 'send_reply',
        to: 'customer@example.com',
        subject: `Re: URGENT: printer on fire [Ticket#${ticket.id.replace(/-/g, '').slice(0, 10)}]`,
        delivery: 'not_configured',
        body: 'Hi Dana, we closed "URGENT: printer on fire".',
        bodyHtml: '<p>Hi Dana</p>',
      },
      {
        nodeId: 'notify',
        type: 'http_request',
        method: 'POST',
        url: `https://hooks.example.com/tickets/${ticket.id}`,
        headers: { 'x-priority': 'urgent' },
        body: { subject: 'URGENT: printer on fire', status: 'closed' },
      },
    ]);

    // Nothing happened: the ticket, its messages, its events and the workflow's executions are as they were.
    expect(await getTicket(api, ticket.id)).toEqual(before);
    expect((await allMessages(api, ticket.id)).total).toBe(1);
    expect(await outboxEvents(app.orm, { ticketId: ticket.id })).toHaveLength(eventsBefore);
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it('follows the false branch when the condition does not hold', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    const ticket = await createTicket(api, { subject: 'Question about invoices' });
    const res = await dryRun(workflow.id, { ticketId: ticket.id });
    expectStatus(res, 200);
    expect(res.body.dryRun).toEqual({
      at: expect.stringMatching(ISO_UTC),
      steps: [
        { nodeId: 'created', status: 'passed' },
        { nodeId: 'is-urgent', status: 'passed', result: false },
        { nodeId: 'routine', status: 'completed', action: { actionType: 'add_tag', tag: 'routine' } },
      ],
      changes: { tags: { from: [], to: ['routine'] } },
      outbound: [],
      assumptions: [],
    });
  });

  it('visits both branches of a fan-out, then their join once', async () => {
    const workflow = await createWorkflow(api, {
      triggerType: 'ticket_created',
      workflowJson: graph(
        [
          triggerNode('ticket_created', 'created'),
          actionNode('raise', { actionType: 'set_priority', priority: 'high' }),
          actionNode('tag', { actionType: 'add_tag', tag: 'hot' }),
          actionNode('reply', { actionType: 'send_reply', body: 'Priority {{ticket.priority}}, tags {{ticket.tags}}.' }),
        ],
        [edge('created', 'raise'), edge('created', 'tag'), edge('raise', 'reply'), edge('tag', 'reply')],
      ),
    });
    const ticket = await createTicket(api);
    const res = await dryRun(workflow.id, { ticketId: ticket.id });
    expect(res.body.dryRun.steps.map((s: Json) => s.nodeId)).toEqual(['created', 'raise', 'tag', 'reply']);
    expect(res.body.dryRun.outbound[0].body).toBe('Priority high, tags hot.');
  });

  it('dry-runs an inactive workflow, and an active one alike', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    const ticket = await createTicket(api, { subject: 'urgent' });
    const inactive = await dryRun(workflow.id, { ticketId: ticket.id });
    expectStatus(inactive, 200);
    expectStatus(await api.patch(`/api/workflows/${workflow.id}`, { isActive: true }), 200);
    const active = await dryRun(workflow.id, { ticketId: ticket.id });
    expectStatus(active, 200);
    expect(active.body.dryRun.steps).toEqual(inactive.body.dryRun.steps);
  });

  it('takes the event details: changes for ticket_updated', async () => {
    const workflow = await createWorkflow(api, {
      triggerType: 'ticket_updated',
      workflowJson: graph(
        [
          triggerNode('ticket_updated', 'updated'),
          conditionNode('to-pending', { field: 'status', operator: 'changed_to', value: 'pending' }),
          actionNode('remind', { actionType: 'send_reply', body: 'Moved from {{changes.status.from}} to {{changes.status.to}}.' }),
        ],
        [edge('updated', 'to-pending'), edge('to-pending', 'remind', 'true')],
      ),
    });
    const ticket = await createTicket(api);
    const pending = await dryRun(workflow.id, { ticketId: ticket.id, changes: { status: { from: 'open', to: 'pending' } } });
    expectStatus(pending, 200);
    expect(pending.body.dryRun.outbound).toEqual([
      { nodeId: 'remind', type: 'send_reply', to: 'customer@example.com', subject: expect.stringMatching(/^Re: .* \[Ticket#[0-9a-f]{10}\]$/), delivery: 'not_configured', body: 'Moved from open to pending.' },
    ]);
    const other = await dryRun(workflow.id, { ticketId: ticket.id, changes: { priority: { from: 'low', to: 'high' } } });
    expect(other.body.dryRun.steps.map((s: Json) => s.result ?? null)).toEqual([null, false]);
  });

  it('takes the event details: message for message_received, tag for tag_added, data', async () => {
    const onMessage = await createWorkflow(api, {
      triggerType: 'message_received',
      workflowJson: graph(
        [triggerNode('message_received', 'got'), actionNode('echo', { actionType: 'add_tag', tag: '{{message.body}}' })],
        [edge('got', 'echo')],
      ),
    });
    const ticket = await createTicket(api);
    const echoed = await dryRun(onMessage.id, { ticketId: ticket.id, message: { body: 'refund' } });
    expect(echoed.body.dryRun.changes).toEqual({ tags: { from: [], to: ['refund'] } });

    const onTag = await createWorkflow(api, {
      triggerType: 'tag_added',
      workflowJson: graph(
        [triggerNode('tag_added', 'tagged'), conditionNode('is-vip', { field: 'tag', operator: 'equals', value: 'vip' }), actionNode('raise', { actionType: 'set_priority', priority: 'high' })],
        [edge('tagged', 'is-vip'), edge('is-vip', 'raise', 'true')],
      ),
    });
    const vip = await dryRun(onTag.id, { ticketId: ticket.id, tag: 'vip' });
    expect(vip.body.dryRun.changes).toEqual({ priority: { from: 'medium', to: 'high' } });

    const manual = await createWorkflow(api, {
      triggerType: 'manual',
      workflowJson: graph(
        [triggerNode('manual', 'go'), actionNode('call', { actionType: 'http_request', method: 'GET', url: 'https://api.example.com/orders/{{data.order}}' })],
        [edge('go', 'call')],
      ),
    });
    const called = await dryRun(manual.id, { data: { order: 42 } });
    expect(called.body.dryRun.outbound).toEqual([{ nodeId: 'call', type: 'http_request', method: 'GET', url: 'https://api.example.com/orders/42' }]);

    const onBreach = await createWorkflow(api, {
      triggerType: 'sla_breached',
      workflowJson: graph(
        [
          triggerNode('sla_breached', 'late'),
          conditionNode('first', { field: 'sla.metric', operator: 'equals', value: 'first_reply' }),
          actionNode('escalate', { actionType: 'set_status', status: 'escalated' }),
          actionNode('note', { actionType: 'add_tag', tag: 'late-{{sla.metric}}' }),
        ],
        [edge('late', 'first'), edge('first', 'escalate', 'true'), edge('first', 'note', 'true')],
      ),
    });
    const breach = { policyId: ticket.id, policyName: 'Urgent', metric: 'first_reply', dueAt: '2026-03-06T10:00:00.000Z' };
    const escalated = await dryRun(onBreach.id, { ticketId: ticket.id, sla: breach });
    expect(escalated.body.dryRun.changes).toEqual({ status: { from: 'open', to: 'escalated' }, tags: { from: [], to: ['late-first_reply'] } });
    expect((await dryRun(onBreach.id, { ticketId: ticket.id, sla: { ...breach, metric: 'resolution' } })).body.dryRun.changes).toEqual({});
    expectValidation(await dryRun(onBreach.id, { ticketId: ticket.id, sla: 'late' }), 'sla', /JSON object/);
  });

  describe('waits are reported, not waited', () => {
    const waitGraph = graph(
      [
        triggerNode('ticket_created', 'created'),
        actionNode('pause', { actionType: 'delay', seconds: 172_800 }),
        actionNode('wait', { actionType: 'wait_for_reply', timeoutSeconds: 432_000 }),
        actionNode('thanks', { actionType: 'add_tag', tag: 'answered' }),
        actionNode('close', { actionType: 'set_status', status: 'closed' }),
      ],
      [edge('created', 'pause'), edge('pause', 'wait'), edge('wait', 'thanks', 'true'), edge('wait', 'close', 'false')],
    );

    it('wait_for_reply takes the false branch by default (no reply within the timeout)', async () => {
      const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: waitGraph });
      const ticket = await createTicket(api);
      const res = await dryRun(workflow.id, { ticketId: ticket.id, at: '2026-03-02T09:00:00Z' });
      expectStatus(res, 200);
      // Each wait counts from when the branch reaches it: the reply window opens after the delay.
      expect(res.body.dryRun.steps).toEqual([
        { nodeId: 'created', status: 'passed' },
        { nodeId: 'pause', status: 'completed', action: { actionType: 'delay', seconds: 172_800 }, waitSeconds: 172_800, until: '2026-03-04T09:00:00.000Z' },
        { nodeId: 'wait', status: 'completed', action: { actionType: 'wait_for_reply', timeoutSeconds: 432_000 }, waitSeconds: 432_000, result: false, until: '2026-03-09T09:00:00.000Z' },
        { nodeId: 'close', status: 'completed', action: { actionType: 'set_status', status: 'closed' } },
      ]);
      // A run reads the ticket afresh after each wait; the dry run says it took it as unchanged.
      expect(res.body.dryRun.assumptions).toEqual([
        'After "pause" a run reads the ticket afresh; here it is taken as unchanged by anyone else during the delay.',
        'After "wait" a run reads the ticket afresh; here it is taken as unchanged by anyone else during the wait.',
      ]);
    });

    it('wait_for_reply takes the true branch with assumeReply: true', async () => {
      const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: waitGraph });
      const ticket = await createTicket(api);
      const res = await dryRun(workflow.id, { ticketId: ticket.id, assumeReply: true });
      expectStatus(res, 200);
      expect(res.body.dryRun.steps.map((s: Json) => [s.nodeId, s.result ?? null])).toEqual([
        ['created', null],
        ['pause', null],
        ['wait', true],
        ['thanks', null],
      ]);
      expect(res.body.dryRun.changes).toEqual({ tags: { from: [], to: ['answered'] } });
      expect(res.body.dryRun.assumptions[1]).toBe('"wait" is taken as answered by the customer in time; otherwise the ticket is taken as unchanged during the wait.');
    });

    it('an assumed reply reopens a pending ticket, as a real one would, and what follows sees it open', async () => {
      const workflow = await createWorkflow(api, {
        triggerType: 'ticket_updated',
        workflowJson: graph(
          [
            triggerNode('ticket_updated', 'updated'),
            actionNode('wait', { actionType: 'wait_for_reply', timeoutSeconds: 3600 }),
            conditionNode('still-pending', { field: 'ticket.status', operator: 'equals', value: 'pending' }),
            actionNode('close', { actionType: 'set_status', status: 'closed' }),
            actionNode('thanks', { actionType: 'send_reply', body: 'Thanks! Your ticket is {{ticket.status}} again.' }),
          ],
          [edge('updated', 'wait'), edge('wait', 'thanks', 'true'), edge('wait', 'still-pending', 'false'), edge('still-pending', 'close', 'true')],
        ),
      });
      const ticket = await createTicket(api);
      await setStatus(api, ticket.id, 'pending');
      const answered = (await dryRun(workflow.id, { ticketId: ticket.id, assumeReply: true })).body.dryRun;
      expect(answered.outbound.map((o: Json) => o.body)).toEqual(['Thanks! Your ticket is open again.']);
      expect(answered.changes).toEqual({ status: { from: 'pending', to: 'open' } });
      expect(answered.assumptions).toEqual(['"wait" is taken as answered by the customer in time, which reopens the pending ticket; otherwise the ticket is taken as unchanged during the wait.']);
      const silent = (await dryRun(workflow.id, { ticketId: ticket.id })).body.dryRun;
      expect(silent.steps.map((s: Json) => s.nodeId)).toEqual(['updated', 'wait', 'still-pending', 'close']);
      expect(silent.changes.status).toEqual({ from: 'pending', to: 'closed' });
    });

    it('a delay until a date reports the seconds left until then', async () => {
      const until = new Date(Date.now() + 3 * 86_400_000).toISOString();
      const workflow = await createWorkflow(api, {
        triggerType: 'manual',
        workflowJson: chain(triggerNode('manual', 'go'), actionNode('later', { actionType: 'delay', until })),
      });
      const res = await dryRun(workflow.id, {});
      const seconds = res.body.dryRun.steps[1].waitSeconds;
      expect(seconds).toBeGreaterThan(3 * 86_400 - 60);
      expect(seconds).toBeLessThanOrEqual(3 * 86_400);
    });

    it('a delay until a past date reports no wait', async () => {
      const workflow = await createWorkflow(api, {
        triggerType: 'manual',
        workflowJson: chain(triggerNode('manual', 'go'), actionNode('later', { actionType: 'delay', until: '2020-01-01T00:00:00Z' })),
      });
      expect((await dryRun(workflow.id, {})).body.dryRun.steps[1].waitSeconds).toBe(0);
    });
  });

  it('shows where a run would fail: a ticket action without a ticket, an assignee who is not a member', async () => {
    const workflow = await createWorkflow(api, {
      triggerType: 'manual',
      workflowJson: chain(triggerNode('manual', 'go'), actionNode('assign', { actionType: 'assign_ticket', assignTo: '{{data.who}}' }), actionNode('after', { actionType: 'add_tag', tag: 'x' })),
    });
    const noTicket = await dryRun(workflow.id, { data: { who: 'agent-1' } });
    expectStatus(noTicket, 200);
    expect(noTicket.body.dryRun.steps[1]).toMatchObject({ nodeId: 'assign', status: 'failed', error: expect.stringMatching(/needs a ticket/) });
    expect(noTicket.body.dryRun.steps).toHaveLength(2);

    const ticket = await createTicket(api);
    const member = await dryRun(workflow.id, { ticketId: ticket.id, data: { who: 'agent-1' } });
    expect(member.body.dryRun.changes).toEqual({ assignedTo: { from: null, to: 'agent-1' }, tags: { from: [], to: ['x'] } });
    const stranger = await dryRun(workflow.id, { ticketId: ticket.id, data: { who: 'stranger' } });
    expect(stranger.body.dryRun.steps[1]).toMatchObject({ status: 'failed', error: expect.stringMatching(/not a current member/) });
    expect(stranger.body.dryRun.changes).toEqual({});
  });

  it('reports a field changed back and forth as unchanged', async () => {
    const workflow = await createWorkflow(api, {
      triggerType: 'manual',
      workflowJson: chain(triggerNode('manual', 'go'), actionNode('hold', { actionType: 'set_status', status: 'pending' }), actionNode('back', { actionType: 'set_status', status: 'open' })),
    });
    const ticket = await createTicket(api);
    expect((await dryRun(workflow.id, { ticketId: ticket.id })).body.dryRun.changes).toEqual({});
  });

  it('answers 404 for a ticket or a workflow of another workspace, and for an unknown workflow', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    const foreignTicket = await createTicket(other);
    expectError(await dryRun(workflow.id, { ticketId: foreignTicket.id }), 404, 'not_found');
    expectError(await dryRun(workflow.id, { ticketId: 'not-a-uuid' }), 404, 'not_found');
    const foreignWorkflow = await createWorkflow(other, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    expectError(await dryRun(foreignWorkflow.id, {}), 404, 'not_found');
    expectError(await dryRun(UNKNOWN_ID, {}), 404, 'not_found');
  });

  it('answers 400 with details for a bad body', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'ticket_created', workflowJson: urgentGraph });
    expectValidation(await dryRun(workflow.id, { surprise: 1 }), 'surprise');
    expectValidation(await dryRun(workflow.id, { data: [1] }), 'data', /JSON object/);
    expectValidation(await dryRun(workflow.id, { assumeReply: 'yes' }), 'assumeReply', /true or false/);
    expectValidation(await dryRun(workflow.id, { changes: { colour: { from: 'a', to: 'b' } } }), 'changes.colour');
    expectValidation(await dryRun(workflow.id, { changes: { status: 'closed' } }), 'changes.status');
    expectValidation(await dryRun(workflow.id, { message: 'hi' }), 'message');
    expectValidation(await dryRun(workflow.id, { tag: '' }), 'tag');
    expectValidation(await dryRun(workflow.id, { ticketId: 7 }), 'ticketId');
    expectError(await api.post(`/api/workflows/${workflow.id}/dry-run`, '[1, 2'), 400, 'invalid_json');
  });

  it('takes no body at all', async () => {
    const workflow = await createWorkflow(api, { triggerType: 'manual', workflowJson: graph([triggerNode('manual', 'go')], []) });
    const res = await api.post(`/api/workflows/${workflow.id}/dry-run`);
    expectStatus(res, 200);
    expect(res.body.dryRun).toEqual({ at: expect.stringMatching(ISO_UTC), steps: [{ nodeId: 'go', status: 'passed' }], changes: {}, outbound: [], assumptions: [] });
  });
});

describe('POST /api/workflows/dry-run (an unsaved graph)', () => {
  it('dry-runs the graph of the body, saving nothing', async () => {
    const ticket = await createTicket(api, { subject: 'urgent: help', customerName: 'Ira', language: 'fr' });
    const before = (await api.get('/api/workflows')).body.workflows.length;
    const res = await api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: urgentGraph, ticketId: ticket.id });
    expectStatus(res, 200);
    expect(res.body.dryRun.steps.map((s: Json) => s.nodeId)).toEqual(['created', 'is-urgent', 'raise', 'tag', 'close', 'reply', 'notify']);
    expect(res.body.dryRun.outbound[0].body).toBe('Hi Ira, we closed "urgent: help".');
    expect((await api.get('/api/workflows')).body.workflows).toHaveLength(before);
    await setStatus(api, ticket.id, 'pending'); // the ticket is still the API's to change
  });

  it('validates triggerType and workflowJson exactly like create, naming each problem', async () => {
    const broken = { nodes: [triggerNode('ticket_created', 'created'), actionNode('bad', { actionType: 'set_status', status: 'gone' })], edges: [edge('created', 'bad')] };
    const created = await api.post('/api/workflows', { name: 'x', triggerType: 'ticket_created', workflowJson: broken });
    const tried = await api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: broken });
    expectError(tried, 400, 'validation_failed');
    expect(tried.body.error.details).toEqual(created.body.error.details);
    expect(tried.body.error.details.length).toBeGreaterThan(0);
    expectValidation(await api.post('/api/workflows/dry-run', { triggerType: 'sometimes', workflowJson: urgentGraph }), 'triggerType');
    expectValidation(await api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: [] }), 'workflowJson');
    expectValidation(await api.post('/api/workflows/dry-run', { triggerType: 'manual', workflowJson: urgentGraph }), 'workflowJson.nodes[0].data.triggerType');
  });

  it('answers 404 for a ticket of another workspace', async () => {
    const foreignTicket = await createTicket(other);
    expectError(await api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: urgentGraph, ticketId: foreignTicket.id }), 404, 'not_found');
  });
});
