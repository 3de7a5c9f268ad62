// Real answers of the running app against the served OpenAPI document: every operation is
// called, every answer's status must be documented for it and its body must validate against
// the documented schema. The document is generated from the presenters' zod schemas, so this
// is where a presenter and its schema (or a route and its operation) drifting apart shows.
// A new route joins the walk below; the last test names any operation it did not call.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/triggers/webhook-signature.ts';
import { createWorkspace, startTestApp, useTestApp } from '../helpers/app.ts';
import { checkedClient, fetchDocument, ResponseChecker, type OpenApi } from '../helpers/openapi.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { expectStatus, newTicket, uniqueName } from '../helpers/api.ts';
import { askApproval } from '../helpers/approvals.ts';
import { actionNode, conditionNode, edge, runnable, triggerNode } from '../helpers/graphs.ts';
import { EventStreamClient, refusal } from '../helpers/event-stream.ts';

const app = useTestApp({ config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' } });
let doc: OpenApi;
let checker: ResponseChecker;
let api: ReturnType<typeof checkedClient>;
let anonymous: ReturnType<typeof checkedClient>;
beforeAll(async () => {
  doc = await fetchDocument(app.baseUrl);
  checker = new ResponseChecker(doc);
  api = checkedClient(app.baseUrl, checker, (await createWorkspace(app.orm, [{ userId: 'agent-1' }])).key);
  anonymous = checkedClient(app.baseUrl, checker);
});

const MiB = 1024 * 1024;

describe('answers of the running app match the OpenAPI document', () => {
  it('service endpoints', async () => {
    expectStatus(await anonymous.get('/healthz'), 200);
    expectStatus(await anonymous.get('/readyz'), 200);
    expectStatus(await anonymous.get('/openapi.json'), 200);
    expectStatus(await anonymous.get('/docs'), 200);
    expectStatus(await anonymous.get('/console'), 200);
    expectStatus(await anonymous.get('/metrics', { authorization: 'Bearer scrape-secret' }), 200);
    expectStatus(await anonymous.get('/metrics'), 401);
  });

  it('tickets and messages, and their errors', async () => {
    const created = await api.post('/api/v1/tickets', newTicket({ source: 'email', language: 'en' }));
    expectStatus(created, 201);
    const id = created.body.data.id;
    expectStatus(await api.get('/api/v1/tickets?page=1&per_page=5&status=open'), 200);
    expectStatus(await api.get(`/api/v1/tickets/${id}`), 200);
    expectStatus(await api.patch(`/api/v1/tickets/${id}`, { priority: 'high', assignedTo: 'agent-1' }), 200);
    // A solved ticket carries a resolution type.
    const solved = await api.patch(`/api/v1/tickets/${id}`, { status: 'solved' });
    expectStatus(solved, 200);
    expect(solved.body.data.resolutionType).toBe('resolved_by_agent');

    const reply = await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Still smoking.', senderEmail: 'customer@example.com', bodyHtml: '<p>Still smoking.</p>' });
    expectStatus(reply, 201);
    expect(reply.body.meta.messageAddedEvent).toBe('emitted');
    const note = await api.post(`/api/v1/tickets/${id}/messages`, { body: 'A note.', senderEmail: 'someone@example.com', senderName: 'Someone' });
    expect(note.body.meta.messageAddedEvent).toBe('skipped_sender_mismatch');
    expectStatus(await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'On it.', bodyHtml: '<p>On it.</p>' }), 201);
    expectStatus(await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'not-a-member', body: 'On it.' }), 403);
    const window = await api.get(`/api/v1/tickets/${id}/messages?limit=1`);
    expectStatus(window, 200);
    expect(window.body.truncated).toBe(true);

    expectStatus(await api.post('/api/v1/tickets', { subject: ' ', unknown: 1 }), 400);
    expectStatus(await api.call('POST', '/api/v1/tickets', '[1]'), 400);
    expectStatus(await api.get('/api/v1/tickets?per_page=101'), 400);
    expectStatus(await api.get(`/api/v1/tickets?workspace_id=${UNKNOWN_ID}`), 403);
    expectStatus(await api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'not-a-member' }), 403);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}`), 404);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/messages`), 404);
    expectStatus(await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Hi', senderEmail: 'a@example.com', direction: 'outbound' }), 409);
    expectStatus(await api.call('POST', '/api/v1/tickets', JSON.stringify(newTicket({ body: 'x'.repeat(MiB) }))), 413);
    expectStatus(await api.call('POST', '/api/v1/tickets', 'subject=Hi', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    expectStatus(await anonymous.get('/api/v1/tickets'), 401);
  });

  it('filters and search, tags, notes and members, and their errors', async () => {
    const id = (await api.post('/api/v1/tickets', newTicket({ subject: 'Scanner jams' }))).body.data.id;
    expectStatus(await api.get('/api/v1/tickets?q=scanner&priority=medium&priority=high&assigned_to=none&source=api&customer_email=customer@example.com'), 200);
    expectStatus(await api.get('/api/v1/tickets?tag=vip&sort=-updated_at'), 200);
    expectStatus(await api.get('/api/v1/tickets?foo=1'), 400);
    expectStatus(await api.get('/api/v1/tickets?priority=extreme'), 400);

    expectStatus(await api.post(`/api/v1/tickets/${id}/tags`, { tag: 'vip' }), 200);
    expectStatus(await api.post(`/api/v1/tickets/${id}/tags`, { tag: ' ' }), 400);
    expectStatus(await api.post(`/api/v1/tickets/${UNKNOWN_ID}/tags`, { tag: 'vip' }), 404);
    expectStatus(await api.delete(`/api/v1/tickets/${id}/tags/vip`), 200);
    expectStatus(await api.delete(`/api/v1/tickets/${id}/tags/${'x'.repeat(101)}`), 400);
    expectStatus(await api.delete(`/api/v1/tickets/${UNKNOWN_ID}/tags/vip`), 404);

    expectStatus(await api.post(`/api/v1/tickets/${id}/notes`, { authorId: 'agent-1', body: 'Internal.' }), 201);
    expectStatus(await api.post(`/api/v1/tickets/${id}/notes`, { authorId: 'stranger', body: 'Internal.' }), 403);
    expectStatus(await api.post(`/api/v1/tickets/${id}/notes`, { authorId: 'agent-1', body: '' }), 400);
    expectStatus(await api.get(`/api/v1/tickets/${id}/notes`), 200);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/notes`), 404);

    expectStatus(await api.get('/api/members'), 200);
    expectStatus(await anonymous.get('/api/members'), 401);
  });

  it('workflows, executions and webhooks, and their errors', async () => {
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    const manual = await api.post('/api/workflows', { name: uniqueName(), description: 'Tags', ...runnable('manual') });
    expectStatus(manual, 201);
    const manualId = manual.body.workflow.id;
    expectStatus(await api.get('/api/workflows?active=false&trigger_type=manual'), 200);
    expectStatus(await api.get(`/api/workflows/${manualId}`), 200);
    const read = await api.get(`/api/workflows/${manualId}`);
    expectStatus(await api.patch(`/api/workflows/${manualId}`, { description: null }, { 'if-match': read.headers.get('etag')! }), 200);
    const stale = await api.patch(`/api/workflows/${manualId}`, { description: 'stale' }, { 'if-match': read.headers.get('etag')! });
    expectStatus(stale, 412);
    expect(stale.headers.get('etag')).toBeTruthy();

    // A run whose path reaches an action stays pending without an engine; one ending at a false condition completes at once, with steps.
    const pending = await api.post(`/api/workflows/${manualId}/trigger`, { ticketId: ticket.id, data: { reason: 'test' } });
    expectStatus(pending, 202);
    const executionId = pending.body.execution.id;
    const falseCondition = {
      nodes: [triggerNode('manual'), conditionNode('never', { field: 'ticket.subject', operator: 'contains', value: 'no such words' }), actionNode('tag')],
      edges: [edge('trigger', 'never'), edge('never', 'tag', 'true')],
    };
    const quick = (await api.post('/api/workflows', { name: uniqueName(), triggerType: 'manual', workflowJson: falseCondition })).body.workflow;
    const done = await api.post(`/api/workflows/${quick.id}/trigger`, { ticketId: ticket.id });
    expectStatus(done, 202);
    expect(done.body.execution.steps.length).toBeGreaterThan(0);
    expectStatus(await api.post(`/api/workflows/${quick.id}/trigger`), 202);

    expectStatus(await api.get(`/api/workflows/${manualId}/executions?limit=10&status=pending`), 200);
    expectStatus(await api.get(`/api/workflows/${quick.id}/executions`), 200);
    expectStatus(await api.post(`/api/workflows/${quick.id}/dry-run`, { ticketId: ticket.id }), 200);
    expectStatus(await api.post('/api/workflows/dry-run', { triggerType: 'manual', workflowJson: falseCondition, data: {} }), 200);
    expectStatus(await api.post(`/api/workflows/${quick.id}/backtest`, { limit: 5 }), 200);
    expectStatus(await api.post(`/api/workflows/${quick.id}/backtest`, { limit: 0 }), 400);
    expectStatus(await api.get(`/api/workflows/${manualId}/executions/${executionId}`), 200);
    expectStatus(await api.get(`/api/v1/tickets/${ticket.id}/executions?limit=5`), 200);
    expectStatus(await api.get(`/api/v1/tickets/${ticket.id}/executions?before=nope`), 400);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/executions`), 404);
    expectStatus(await api.post(`/api/workflows/${manualId}/executions/${executionId}/cancel`), 202);
    expectStatus(await api.post(`/api/workflows/${manualId}/executions/${executionId}/cancel`), 409);

    const hook = (await api.post('/api/workflows', { name: uniqueName(), triggerType: 'webhook' })).body.workflow;
    const { webhook } = (await api.get(`/api/workflows/${hook.id}`)).body.workflow;
    const body = JSON.stringify({ topic: 'billing', ticketId: ticket.id });
    const post = (headers: Record<string, string>) => anonymous.call('POST', webhook.path, body, headers);
    expectStatus(await post({ 'x-deskflow-signature': signatureHeader(webhook.secret, body) }), 409);
    expectStatus(await api.patch(`/api/workflows/${hook.id}`, { isActive: true }), 200);
    expectStatus(await post({ 'x-deskflow-signature': signatureHeader(webhook.secret, body) }), 202);
    expectStatus(await post({ 'x-deskflow-signature': signatureHeader('whsec_wrong', body) }), 401);
    expectStatus(await anonymous.call('POST', `/api/workflows/${UNKNOWN_ID}/webhook`, body, {}), 404);

    expectStatus(await api.post('/api/workflows', { name: 'x', workflowJson: { nodes: [], edges: [] } }), 400);
    expectStatus(await api.get(`/api/workflows/${UNKNOWN_ID}`), 404);
    expectStatus(await api.delete(`/api/workflows/${manualId}`), 204);
    expectStatus(await api.delete(`/api/workflows/${manualId}`), 404);
  });

  it('calendars, and their errors', async () => {
    const hours = [{ day: 'mon', from: '09:00', to: '17:00' }];
    const created = await api.post('/api/calendars', { name: 'Office', timeZone: 'Europe/Berlin', hours, holidays: [{ date: '2026-12-25', name: 'Christmas Day' }] });
    expectStatus(created, 201);
    const id = created.body.calendar.id;
    expectStatus(await api.get('/api/calendars'), 200);
    expectStatus(await api.get(`/api/calendars/${id}`), 200);
    expectStatus(await api.patch(`/api/calendars/${id}`, { holidays: [] }), 200);
    expectStatus(await api.post('/api/calendars', { name: 'Night', timeZone: 'UTC', hours: [{ day: 'fri', from: '22:00', to: '06:00' }] }), 400);
    const workflowJson = {
      nodes: [triggerNode('manual'), conditionNode('open', { field: 'now', operator: 'in_business_hours', value: id }), actionNode('tag')],
      edges: [edge('trigger', 'open'), edge('open', 'tag', 'true')],
    };
    const user = (await api.post('/api/workflows', { name: uniqueName(), triggerType: 'manual', workflowJson })).body.workflow;
    expectStatus(await api.patch(`/api/workflows/${user.id}`, { isActive: true }), 200);
    expectStatus(await api.delete(`/api/calendars/${id}`), 409);
    expectStatus(await api.delete(`/api/workflows/${user.id}`), 204);
    expectStatus(await api.delete(`/api/calendars/${id}`), 204);
    expectStatus(await api.get(`/api/calendars/${id}`), 404);
  });

  it('the event stream: its events’ data, and its errors', async () => {
    const { key } = await createWorkspace(app.orm);
    const stream = await EventStreamClient.open(app.baseUrl, { key });
    checker.check('GET', '/api/v1/events', { status: 200, headers: stream.headers, body: undefined });
    const own = checkedClient(app.baseUrl, checker, key);
    const id = (await own.post('/api/v1/tickets', newTicket())).body.data.id;
    expectStatus(await own.patch(`/api/v1/tickets/${id}`, { status: 'closed' }), 200);
    expectStatus(await own.post(`/api/v1/tickets/${id}/messages`, { body: 'Thanks!', senderEmail: 'customer@example.com' }), 201);
    const events = await stream.next(0, 3);
    expect(events.map((e) => e.event)).toEqual(['ticket.created', 'ticket.updated', 'message.added']);
    for (const event of events) checker.checkStreamedData('GET', '/api/v1/events', 200, event.data);
    expect(() => checker.checkStreamedData('GET', '/api/v1/events', 200, { ...events[0].data, workspaceId: UNKNOWN_ID })).toThrow(/does not match/);
    stream.close();

    for (const [opts, status] of [[{ key, lastEventId: 'nope' }, 400], [{}, 401]] as const) {
      const refused = await refusal(app.baseUrl, opts);
      expect(refused.status).toBe(status);
      checker.check('GET', '/api/v1/events', { status: refused.status, headers: refused.headers, body: refused.body });
    }
  });

  it('approvals, and their errors', async () => {
    const people = [{ userId: 'alice' }, { userId: 'bob' }];
    const own = await createWorkspace(app.orm, people);
    const ownApi = checkedClient(app.baseUrl, checker, own.key);
    expect((await ownApi.get('/api/members')).body).toEqual({ members: [{ userId: 'alice', role: 'member' }, { userId: 'bob', role: 'member' }] });
    const { approvalId } = await askApproval(app.orm, ownApi, own.workspaceId, { timeoutSeconds: 600 });
    expectStatus(await ownApi.get('/api/approvals?status=pending&approver=alice&limit=5'), 200);
    expectStatus(await ownApi.get(`/api/approvals/${approvalId}`), 200);
    expectStatus(await ownApi.get(`/api/approvals/${UNKNOWN_ID}`), 404);
    expectStatus(await ownApi.post(`/api/approvals/${approvalId}/decision`, { userId: 'alice', decision: 'perhaps' }), 400);
    expectStatus(await ownApi.post(`/api/approvals/${approvalId}/decision`, { userId: 'carol', decision: 'approve' }), 403);
    expectStatus(await ownApi.post(`/api/approvals/${approvalId}/decision`, { userId: 'alice', decision: 'approve', comment: 'Fine.' }), 200);
    expectStatus(await ownApi.post(`/api/approvals/${approvalId}/decision`, { userId: 'bob', decision: 'reject' }), 409);
    const all = await askApproval(app.orm, ownApi, own.workspaceId, { quorum: 'all' });
    expectStatus(await ownApi.post(`/api/approvals/${all.approvalId}/decision`, { userId: 'bob', decision: 'approve' }), 200);
    expectStatus(await ownApi.post(`/api/approvals/${all.approvalId}/decision`, { userId: 'bob', decision: 'approve' }), 409);
  });

  it('SLA policies, and their errors', async () => {
    const calendar = (await api.post('/api/calendars', { name: 'Office', timeZone: 'UTC', hours: [{ day: 'mon', from: '09:00', to: '17:00' }] })).body.calendar;
    const body = { name: 'Urgent', description: 'VIPs', match: { field: 'ticket.tags', operator: 'contains', value: 'vip' }, calendarId: calendar.id, targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 3600, warnBeforeSeconds: 900 }] };
    const created = await api.post('/api/sla-policies', body);
    expectStatus(created, 201);
    const id = created.body.policy.id;
    expectStatus(await api.get('/api/sla-policies'), 200);
    expectStatus(await api.get(`/api/sla-policies/${id}`), 200);
    expectStatus(await api.patch(`/api/sla-policies/${id}`, { pauseOn: ['pending', 'escalated'], match: null }), 200);
    expectStatus(await api.post('/api/sla-policies', { ...body, targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 60, warnBeforeSeconds: 60 }] }), 400);
    expectStatus(await api.delete(`/api/calendars/${calendar.id}`), 409);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    expectStatus(await api.get(`/api/v1/tickets/${ticket.id}/sla`), 200);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/sla`), 404);
    expectStatus(await api.get('/api/sla/tickets?status=warning&metric=first_reply&limit=5'), 200);
    expectStatus(await api.get('/api/sla/tickets?status=late'), 400);
    expectStatus(await api.post('/api/sla-policies/backtest', { policy: body, days: 30 }), 200);
    expectStatus(await api.post('/api/sla-policies/backtest', { policy: body, days: 0 }), 400);
    expectStatus(await api.delete(`/api/sla-policies/${id}`), 204);
    expectStatus(await api.get(`/api/sla-policies/${id}`), 404);
  });

  it('knowledge, and its errors', async () => {
    const created = await api.post('/api/knowledge', { title: 'Reset your password', body: 'Open Settings, then Security.', language: 'en', tags: ['account'] });
    expectStatus(created, 201);
    const id = created.body.article.id;
    expectStatus(await api.get('/api/knowledge'), 200);
    expectStatus(await api.get('/api/knowledge/search?q=password&language=en&limit=5'), 200);
    expectStatus(await api.get(`/api/knowledge/${id}`), 200);
    expectStatus(await api.patch(`/api/knowledge/${id}`, { tags: [] }), 200);
    expectStatus(await api.post('/api/knowledge', { title: '', body: 'x' }), 400);
    expectStatus(await api.get('/api/knowledge/search'), 400);
    expectStatus(await api.delete(`/api/knowledge/${id}`), 204);
    expectStatus(await api.get(`/api/knowledge/${id}`), 404);
  });

  it('the AI owner’s settings, and their errors', async () => {
    expectStatus(await api.get('/api/ai'), 200);
    expectStatus(await api.patch('/api/ai', { enabled: false, model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-x' }, handoffTo: 'agent-1' }), 200);
    expectStatus(await api.patch('/api/ai', { minScore: 2 }), 400);
    expectStatus(await api.patch('/api/ai', { handoffTo: 'not-a-member' }), 403);

    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    expectStatus(await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'ai' }), 200);
    expectStatus(await api.get(`/api/v1/tickets/${ticket.id}/ai`), 200);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/dry-run`), 200);
    expectStatus(await api.get(`/api/v1/tickets/${UNKNOWN_ID}/ai`), 404);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/drafts/${UNKNOWN_ID}/send`, { authorId: 'agent-1' }), 404);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/drafts/${UNKNOWN_ID}/send`, { authorId: 'not-a-member' }), 403);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/drafts/${UNKNOWN_ID}/send`, {}), 400);
    // A draft as the owner's run writes one (no worker runs here).
    const draftId = randomUUID();
    await app.orm.em.fork().getConnection().execute(
      `insert into "ai_turns" ("id", "workspace_id", "ticket_id", "answers_message_id", "action", "citations", "body", "draft_state", "created_at")
       select ?, "workspace_id", "id", ?, 'draft', '{}', 'Try turning it off and on.', 'waiting', now() from "tickets" where "id" = ?`,
      [draftId, randomUUID(), ticket.id],
    );
    expectStatus(await api.get(`/api/v1/tickets/${ticket.id}/ai`), 200);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/drafts/${draftId}/send`, { authorId: 'agent-1' }), 200);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/ai/drafts/${draftId}/send`, { authorId: 'agent-1' }), 409);
  });

  it('rate limiting (429 with Retry-After)', async () => {
    const limited = await startTestApp({ config: { rateLimit: { perSecond: 0.01, burst: 1 } } });
    try {
      const key = (await createWorkspace(limited.orm)).key;
      const limitedApi = checkedClient(limited.baseUrl, new ResponseChecker(doc), key);
      expectStatus(await limitedApi.get('/api/v1/tickets'), 200);
      const refused = await limitedApi.get('/api/v1/tickets');
      expectStatus(refused, 429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it('the check refuses an answer the document does not describe (it can fail)', () => {
    const answer = (status: number, body: unknown) => ({ status, headers: new Headers({ 'content-type': 'application/json' }), body });
    const ticket = { id: UNKNOWN_ID, subject: 's', status: 'open', priority: 'low', customerEmail: 'a@b', customerName: null, source: 'api', createdAt: '2026-01-31T09:00:00.000Z' };
    expect(() => checker.check('POST', '/api/v1/tickets', answer(201, { data: ticket }))).not.toThrow();
    expect(() => checker.check('POST', '/api/v1/tickets', answer(201, { data: { ...ticket, workspaceId: UNKNOWN_ID } }))).toThrow(/does not match/);
    expect(() => checker.check('POST', '/api/v1/tickets', answer(201, { data: { ...ticket, status: 'archived' } }))).toThrow(/does not match/);
    expect(() => checker.check('POST', '/api/v1/tickets', answer(200, { data: ticket }))).toThrow(/status not documented/);
    expect(() => checker.check('POST', '/api/v1/tickets', answer(403, { error: { code: 'forbidden', message: 'x' } }))).toThrow(/status not documented/);
    expect(() => checker.check('POST', '/api/v1/tickets', answer(409, { error: { code: 'workflow_inactive', message: 'x' } }))).toThrow(/does not match/);
    expect(() => checker.check('PUT', '/api/v1/tickets', answer(200, {}))).toThrow(/not in the OpenAPI document/);
  });

  it('every documented success answer was seen above', () => {
    const successes = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((op) => Object.keys(op.responses).filter((s) => s.startsWith('2')).map((s) => `${op.operationId} ${s}`)),
    );
    expect(successes.length).toBeGreaterThan(15);
    expect(successes.filter((s) => !checker.seen.has(s))).toEqual([]);
  });
});
