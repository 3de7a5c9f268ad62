// docs/contract.md §1, Idempotent writes: Idempotency-Key on POST /api/v1/tickets,
// POST /api/v1/tickets/:id/messages and POST /api/workflows/:id/trigger, against the real database.
import { describe, expect, it } from 'vitest';
import { type ApiResponse, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, outboxEvents } from '../helpers/expect.ts';
import { IdempotencyService } from '../../src/idempotency/service.ts';
import { allMessages, createTicket, createWorkflow, listExecutions, newTicket } from '../helpers/api.ts';
import { runnable } from '../helpers/graphs.ts';

const app = useTestApp();
const { ws, api } = useWorkspace(app);

type Sent = ApiResponse & { text: string; replayed: string | null };

let keys = 0;
/** A key no other test uses. */
const newKey = () => `test-${++keys}-${Math.random().toString(36).slice(2, 10)}`;

/** A POST with a key, answered as the exact text the server sent. `body` as a string is sent as it is. */
async function post(path: string, body: unknown, key: string | null, apiKey = ws.key): Promise<Sent> {
  const res = await fetch(app.baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(key === null ? {} : { 'idempotency-key': key }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, replayed: res.headers.get('idempotency-replayed'), body: JSON.parse(text) };
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const [row] = await app.orm.em.fork().execute<Array<{ n: string }>>(sql, params);
  return Number(row.n);
}
const ticketsOf = (workspaceId = ws.workspaceId) => count('select count(*) as n from tickets where workspace_id = ?', [workspaceId]);
const messagesOf = (ticketId: string) => count('select count(*) as n from messages where ticket_id = ?', [ticketId]);
const executionsOf = (workflowId: string) => count('select count(*) as n from executions where workflow_id = ?', [workflowId]);
const keyRows = (key: string) => count('select count(*) as n from idempotency_keys where key = ?', [key]);
/** Moves a key's creation `hours` into the past. */
const age = (key: string, hours: number) =>
  app.orm.em.fork().execute(`update idempotency_keys set created_at = created_at - make_interval(hours => ?) where workspace_id = ? and key = ?`, [hours, ws.workspaceId, key]);

/** The three endpoints, each with a valid body, a different valid body and the way to count its writes. */
type Endpoint = { name: string; path: () => Promise<string>; body: Record<string, unknown>; other: Record<string, unknown>; written: (path: string) => Promise<number> };
const endpoints: Endpoint[] = [
  {
    name: 'POST /api/v1/tickets',
    path: async () => '/api/v1/tickets',
    body: newTicket({ subject: 'Keyed' }),
    other: newTicket({ subject: 'Keyed, but another' }),
    written: () => ticketsOf(),
  },
  {
    name: 'POST /api/v1/tickets/:id/messages',
    path: async () => `/api/v1/tickets/${(await createTicket(api)).id}/messages`,
    body: { body: 'Still broken.', senderEmail: 'customer@example.com' },
    other: { body: 'Still broken!', senderEmail: 'customer@example.com' },
    written: (path) => messagesOf(path.split('/')[4]),
  },
  {
    name: 'POST /api/workflows/:id/trigger',
    path: async () => `/api/workflows/${(await createWorkflow(api, runnable())).id}/trigger`,
    body: { data: { reason: 'retry me' } },
    other: { data: { reason: 'something else' } },
    written: (path) => executionsOf(path.split('/')[3]),
  },
];

describe.each(endpoints)('Idempotency-Key on $name', (endpoint) => {
  it('answers the first answer again, word for word and marked as a replay, and writes once', async () => {
    const path = await endpoint.path();
    const before = await endpoint.written(path);
    const key = newKey();
    const first = await post(path, endpoint.body, key);
    expect(first.status, first.text).toBeOneOf([201, 202]);
    expect(first.replayed).toBeNull();
    const again = await post(path, endpoint.body, key);
    const third = await post(path, endpoint.body, key);
    for (const replay of [again, third]) {
      expect(replay).toMatchObject({ status: first.status, text: first.text, replayed: 'true' });
    }
    expect(await endpoint.written(path)).toBe(before + 1);
  });

  it('writes exactly once for 20 parallel requests with one key, and all of them get the same answer', async () => {
    const path = await endpoint.path();
    const before = await endpoint.written(path);
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(path, endpoint.body, key)));
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size, answers.map((a) => a.text).join('\n')).toBe(1);
    expect(answers[0].status).toBeOneOf([201, 202]);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    expect(await endpoint.written(path)).toBe(before + 1);
  });

  it('refuses the key with a different body (409 idempotency_key_reused) and writes nothing', async () => {
    const path = await endpoint.path();
    const key = newKey();
    const first = await post(path, endpoint.body, key);
    const written = await endpoint.written(path);
    const reused = await post(path, endpoint.other, key);
    expectError(reused, 409, 'idempotency_key_reused');
    expect(reused.body.error.message).toMatch(/different body/);
    expect(await endpoint.written(path)).toBe(written);
    // The key still answers its own request.
    expect(await post(path, endpoint.body, key)).toMatchObject({ status: first.status, text: first.text, replayed: 'true' });
  });

  it('writes again with the same key after 24 hours, but not before', async () => {
    const path = await endpoint.path();
    const key = newKey();
    const first = await post(path, endpoint.body, key);
    await age(key, 23);
    expect(await post(path, endpoint.body, key)).toMatchObject({ text: first.text, replayed: 'true' });
    const written = await endpoint.written(path);
    await age(key, 1);
    const later = await post(path, endpoint.body, key);
    expect(later.status).toBe(first.status);
    expect(later.replayed).toBeNull();
    expect(later.text).not.toBe(first.text);
    expect(await endpoint.written(path)).toBe(written + 1);
    // The key now stands for the new write, for another 24 hours.
    expect(await post(path, endpoint.body, key)).toMatchObject({ text: later.text, replayed: 'true' });
  });
});

describe('what counts as the same request', () => {
  it('is the parsed JSON: key order and whitespace do not matter', async () => {
    const key = newKey();
    const first = await post('/api/v1/tickets', '{"subject":"Order","customerEmail":"a@example.com","body":"x","source":"email"}', key);
    expect(first.status).toBe(201);
    const before = await ticketsOf();
    const reordered = await post('/api/v1/tickets', '{\n  "source": "email",\n  "body": "x",\n  "customerEmail": "a@example.com",\n  "subject": "Order"\n}', key);
    expect(reordered).toMatchObject({ status: 201, text: first.text, replayed: 'true' });
    expect(await ticketsOf()).toBe(before);
  });

  it('is the endpoint too: the key of a ticket creation refused on a message (409), nothing written', async () => {
    const ticket = await createTicket(api);
    const key = newKey();
    expect((await post('/api/v1/tickets', newTicket(), key)).status).toBe(201);
    const reused = await post(`/api/v1/tickets/${ticket.id}/messages`, { body: 'Hi', senderEmail: 'customer@example.com' }, key);
    expectError(reused, 409, 'idempotency_key_reused');
    expect(reused.body.error.message).toContain('POST /api/v1/tickets');
    expect((await allMessages(api, ticket.id)).total).toBe(1);
  });

  it('is the resource too: one key on two tickets is refused on the second', async () => {
    const [a, b] = [await createTicket(api), await createTicket(api)];
    const key = newKey();
    const message = { body: 'Hi', senderEmail: 'customer@example.com' };
    expect((await post(`/api/v1/tickets/${a.id}/messages`, message, key)).status).toBe(201);
    expectError(await post(`/api/v1/tickets/${b.id}/messages`, message, key), 409, 'idempotency_key_reused');
    expect(await messagesOf(b.id)).toBe(1);
  });

  it('is scoped to the workspace: another workspace with the same key writes its own', async () => {
    const other = await createWorkspace(app.orm);
    const key = newKey();
    const mine = await post('/api/v1/tickets', newTicket(), key);
    const theirs = await post('/api/v1/tickets', newTicket(), key, other.key);
    expect(mine.status).toBe(201);
    expect(theirs).toMatchObject({ status: 201, replayed: null });
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(await ticketsOf(other.workspaceId)).toBe(1);
    // And a different body there is no conflict with the first workspace's key.
    expect((await post('/api/v1/tickets', newTicket({ subject: 'Else' }), newKey(), other.key)).status).toBe(201);
  });
});

describe('a failed first attempt', () => {
  it('leaves no key behind: after a 400 the retry with the same key writes', async () => {
    const key = newKey();
    expectValidation(await post('/api/v1/tickets', newTicket({ subject: '' }), key), 'subject');
    expect(await keyRows(key)).toBe(0);
    const before = await ticketsOf();
    const retry = await post('/api/v1/tickets', newTicket(), key);
    expect(retry).toMatchObject({ status: 201, replayed: null });
    expect(await ticketsOf()).toBe(before + 1);
  });

  it('leaves no key behind after a 404 or a 409 of the route either', async () => {
    const key = newKey();
    expectError(await post('/api/v1/tickets/00000000-0000-4000-8000-000000000000/messages', { body: 'x', senderEmail: 'a@example.com' }, key), 404, 'not_found');
    const ticket = await createTicket(api);
    expectError(await post(`/api/v1/tickets/${ticket.id}/messages`, { body: 'x', senderEmail: 'a@example.com', direction: 'outbound' }, key), 409, 'outbound_not_allowed');
    expect(await keyRows(key)).toBe(0);
    expect((await post(`/api/v1/tickets/${ticket.id}/messages`, { body: 'x', senderEmail: 'a@example.com' }, key)).status).toBe(201);
  });
});

describe('the trigger endpoint', () => {
  it('replays the execution as it was first answered, and starts no second one', async () => {
    const workflow = await createWorkflow(api, runnable());
    const path = `/api/workflows/${workflow.id}/trigger`;
    const key = newKey();
    const first = await post(path, {}, key);
    expect(first.status).toBe(202);
    expect(first.body.execution.status).toBe('pending');
    const cancelled = await api.post(`/api/workflows/${workflow.id}/executions/${first.body.execution.id}/cancel`);
    expect(cancelled.body.execution.status).toBe('cancelled');

    const replay = await post(path, {}, key);
    expect(replay).toMatchObject({ status: 202, text: first.text, replayed: 'true' });
    expect((await listExecutions(api, workflow.id)).map((e) => [e.id, e.status])).toEqual([[first.body.execution.id, 'cancelled']]);
  });

  it('treats no body and {} as the same body', async () => {
    const workflow = await createWorkflow(api, runnable());
    const key = newKey();
    const first = await fetch(`${app.baseUrl}/api/workflows/${workflow.id}/trigger`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': key } });
    expect(first.status).toBe(202);
    expect(await post(`/api/workflows/${workflow.id}/trigger`, {}, key)).toMatchObject({ text: await first.text(), replayed: 'true' });
    expect(await executionsOf(workflow.id)).toBe(1);
  });

  it('replays even after the workflow was deleted: the key is looked at before the workflow', async () => {
    const workflow = await createWorkflow(api, runnable());
    const path = `/api/workflows/${workflow.id}/trigger`;
    const key = newKey();
    const first = await post(path, {}, key);
    expect((await api.delete(`/api/workflows/${workflow.id}`)).status).toBe(204);
    expect(await post(path, {}, key)).toMatchObject({ status: 202, text: first.text, replayed: 'true' });
    expectError(await post(path, {}, newKey()), 404, 'not_found');
  });
});

describe('the Idempotency-Key header', () => {
  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['not ASCII', 'clé'],
    ['sent twice (joined by ", ")', 'a, b'],
  ];

  it.each(malformed)('is a 400 validation_failed naming the header when %s, and nothing is written', async (_, key) => {
    const before = await ticketsOf();
    const res = await post('/api/v1/tickets', newTicket(), key);
    expectValidation(res, 'Idempotency-Key', /1-255 visible ASCII characters/);
    expect(await ticketsOf()).toBe(before);
  });

  it('accepts 255 visible ASCII characters, punctuation included', async () => {
    const key = `${'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'}${'k'.repeat(255 - 32)}`;
    expect(key).toHaveLength(255);
    const first = await post('/api/v1/tickets', newTicket(), key);
    expect(first.status).toBe(201);
    expect(await post('/api/v1/tickets', newTicket(), key)).toMatchObject({ text: first.text, replayed: 'true' });
  });

  it('is checked after the body is read: broken JSON with a bad key is a 400 invalid_json', async () => {
    expectError(await post('/api/v1/tickets', '{"subject":', 'two words'), 400, 'invalid_json');
  });

  it('is checked before the resource: a bad key on an unknown ticket is a 400', async () => {
    expectValidation(await post('/api/v1/tickets/00000000-0000-4000-8000-000000000000/messages', { body: 'x', senderEmail: 'a@example.com' }, ''), 'Idempotency-Key');
  });

  it('is ignored by other endpoints', async () => {
    const ticket = await createTicket(api);
    const res = await api.patch(`/api/v1/tickets/${ticket.id}`, { priority: 'high' }, { 'idempotency-key': 'two words' });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotency-replayed')).toBeNull();
  });

  it('keeps the write and its event together: one ticket_created event for a key used five times', async () => {
    const other = await createWorkspace(app.orm);
    const key = newKey();
    for (let i = 0; i < 5; i++) expect((await post('/api/v1/tickets', newTicket(), key, other.key)).status).toBe(201);
    expect((await outboxEvents(app.orm, { workspace: other.workspaceId })).map((e) => e.type)).toEqual(['ticket_created']);
  });
});

describe('expired keys', () => {
  it('are purged oldest first in batches of the given size, only those over 24 hours old and only of the given workspaces', async () => {
    const mine = await createWorkspace(app.orm);
    const theirs = await createWorkspace(app.orm);
    const keysOf = async (workspaceId: string) =>
      (await app.orm.em.fork().execute<Array<{ key: string }>>('select key from idempotency_keys where workspace_id = ? order by key', [workspaceId])).map((r) => r.key);
    for (const [workspace, key, hours] of [[mine, 'a-fresh', 0], [mine, 'b-old', 25], [mine, 'c-older', 26], [mine, 'd-oldest', 48], [theirs, 'e-old', 25]] as const) {
      expect((await post('/api/v1/tickets', newTicket(), key, workspace.key)).status).toBe(201);
      await app.orm.em.fork().execute(`update idempotency_keys set created_at = created_at - make_interval(hours => ?) where workspace_id = ? and key = ?`, [hours, workspace.workspaceId, key]);
    }
    const keyService = () => new IdempotencyService(app.orm.em.fork());
    expect(await keyService().purgeExpired(2, [mine.workspaceId])).toBe(2);
    expect(await keysOf(mine.workspaceId)).toEqual(['a-fresh', 'b-old']);
    expect(await keyService().purgeExpired(100, [mine.workspaceId])).toBe(1);
    expect(await keysOf(mine.workspaceId)).toEqual(['a-fresh']);
    expect(await keysOf(theirs.workspaceId)).toEqual(['e-old']);
    expect(await keyService().purgeExpired(100, [])).toBe(0);
    expect(await keysOf(theirs.workspaceId)).toEqual(['e-old']);
  });
});
