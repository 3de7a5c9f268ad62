import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ormConfig } from '../../src/db/orm.ts';
import { createLogger } from '../../src/logger.ts';
import { client, createWorkspace, startTestApp, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectErrorShape, expectValidation } from '../helpers/expect.ts';
import { freePort } from '../helpers/ports.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { allMessages, createTicket, getTicket, newTicket } from '../helpers/api.ts';

const MiB = 1024 * 1024;
const UNKNOWN_TICKET = '00000000-0000-4000-8000-000000000000';

const app = useTestApp();
const { ws, api } = useWorkspace(app, [{ userId: 'agent-1' }]);
let ticketId: string;
beforeAll(async () => {
  ticketId = (await createTicket(api)).id;
});

/** `value` as JSON of exactly `bytes` bytes, padded with spaces inside the object. */
function jsonOfSize(value: object, bytes: number): Buffer {
  const json = JSON.stringify(value);
  const padding = bytes - Buffer.byteLength(json);
  if (padding < 0) throw new Error(`${json.length} bytes do not fit in ${bytes}`);
  return Buffer.from(`${json.slice(0, -1)}${' '.repeat(padding)}}`);
}

const send = (method: string, path: string, body: Buffer | string, opts: { chunked?: boolean; key?: string | null; contentType?: string } = {}) =>
  rawRequest(app.baseUrl, {
    method,
    path,
    body,
    chunked: opts.chunked,
    headers: {
      ...(opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? ws.key}` }),
      'content-type': opts.contentType ?? 'application/json',
    },
  });

describe('body size limits, judged on the bytes received', () => {
  const cases = [
    { name: 'ticket create', method: 'POST', path: () => '/api/v1/tickets', limit: MiB, body: () => newTicket(), ok: 201 },
    { name: 'ticket update', method: 'PATCH', path: () => `/api/v1/tickets/${ticketId}`, limit: MiB, body: () => ({ priority: 'high' }), ok: 200 },
    {
      name: 'add message',
      method: 'POST',
      path: () => `/api/v1/tickets/${ticketId}/messages`,
      limit: 2 * MiB,
      body: () => ({ body: 'padded', senderEmail: 'someone@example.com' }),
      ok: 201,
    },
  ];

  for (const c of cases) {
    for (const chunked of [false, true]) {
      const how = chunked ? 'chunked, without Content-Length' : 'with Content-Length';
      it(`${c.name}: takes exactly ${c.limit} bytes (${how})`, async () => {
        const res = await send(c.method, c.path(), jsonOfSize(c.body(), c.limit), { chunked });
        expect(res.status, res.text.slice(0, 300)).toBe(c.ok);
      });

      it(`${c.name}: refuses ${c.limit + 1} bytes with a JSON 413 (${how})`, async () => {
        const res = await send(c.method, c.path(), jsonOfSize(c.body(), c.limit + 1), { chunked });
        expect(res.status, res.text.slice(0, 300)).toBe(413);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.error.code).toBe('payload_too_large');
        expectErrorShape(res.body);
      });
    }

    it(`${c.name}: answers 413 to a much larger chunked body while the client is still sending`, async () => {
      const res = await send(c.method, c.path(), Buffer.alloc(16 * MiB, ' '), { chunked: true });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });
  }

  it('saves nothing from a refused body', async () => {
    const before = await getTicket(api, ticketId);
    const messagesBefore = (await allMessages(api, ticketId)).total;
    await send('PATCH', `/api/v1/tickets/${ticketId}`, jsonOfSize({ status: 'closed' }, MiB + 1), { chunked: true });
    await send('POST', `/api/v1/tickets/${ticketId}/messages`, jsonOfSize({ body: 'x', senderEmail: 'customer@example.com' }, 2 * MiB + 1));
    expect(await getTicket(api, ticketId)).toEqual(before);
    expect((await allMessages(api, ticketId)).total).toBe(messagesBefore);
  });

  it('counts bytes, not characters: 1 MiB of multi-byte text is too large for a ticket', async () => {
    const body = JSON.stringify(newTicket({ body: 'é'.repeat(MiB / 2) }));
    expect(body.length).toBeLessThan(MiB);
    const res = await send('POST', '/api/v1/tickets', body);
    expect(res.status).toBe(413);
  });
});

describe('content type and JSON', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
    'refuses a body sent as %s with 415',
    async (contentType) => {
      const res = await send('POST', '/api/v1/tickets', JSON.stringify(newTicket()), { contentType });
      expectError(res, 415, 'unsupported_media_type');
    },
  );

  it('refuses a body without a content type with 415', async () => {
    const res = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: '/api/v1/tickets',
      headers: { authorization: `Bearer ${ws.key}` },
      body: JSON.stringify(newTicket()),
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'])('accepts %s', async (contentType) => {
    const res = await send('POST', '/api/v1/tickets', JSON.stringify(newTicket()), { contentType });
    expect(res.status).toBe(201);
  });

  it.each(['application/merge-patch+json', 'application/vnd.api+json', 'application/json; charset=latin1', 'application/json; charset=utf-16'])(
    'refuses a body sent as %s with 415 and applies nothing',
    async (contentType) => {
      const { id } = await createTicket(api);
      const res = await send('PATCH', `/api/v1/tickets/${id}`, JSON.stringify({ priority: 'low' }), { contentType });
      expectError(res, 415, 'unsupported_media_type');
      expect((await api.get(`/api/v1/tickets/${id}`)).body.data.priority).toBe('medium');
    },
  );

  it('refuses an empty body declared as JSON with 400 invalid_json', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/tickets'],
      ['PATCH', `/api/v1/tickets/${ticketId}`],
      ['POST', `/api/v1/tickets/${ticketId}/messages`],
    ]) {
      for (const chunked of [false, true]) {
        const res = await send(method, path, '', { chunked });
        expectError(res, 400, 'invalid_json');
        expect(res.body.error.message).toMatch(/empty/);
      }
    }
  });

  it('reads a request with no body and no content type as an empty object', async () => {
    const res = await rawRequest(app.baseUrl, { method: 'POST', path: '/api/v1/tickets', headers: { authorization: `Bearer ${ws.key}` } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain('subject');
  });

  it.each([
    ['an array', '[]', 'an array'],
    ['null', 'null', 'null'],
    ['a number', '5', 'a number'],
    ['a string', '"open"', 'a string'],
  ])('says what came instead of a JSON object: %s', async (_what, raw, named) => {
    const res = await api.call('POST', '/api/v1/tickets', raw, { 'content-type': 'application/json' });
    expectError(res, 400, 'invalid_json');
    expect(res.body.error.message).toBe(`The request body must be a JSON object, not ${named}.`);
  });

  it.each([
    ['POST', '/api/v1/tickets', () => newTicket()],
    ['PATCH', 'ticket', () => ({ status: 'pending' })],
    ['POST', 'ticket/messages', () => ({ body: 'hi', senderEmail: 'customer@example.com' })],
  ])('refuses JSON nested 10,000 levels deep with 400 naming the field (%s %s)', async (method, where, valid) => {
    const path = where === 'ticket' ? `/api/v1/tickets/${ticketId}` : where === 'ticket/messages' ? `/api/v1/tickets/${ticketId}/messages` : where;
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const raw = JSON.stringify(valid()).replace(/}$/, `,"foo":${deep}}`);
    const res = await api.call(method, path, raw, { 'content-type': 'application/json' });
    expectValidation(res, 'foo');
    expect(res.body.error.details[0].message).toMatch(/64 levels/);
  });

  it.each([
    ['truncated JSON', '{"subject":'],
    ['single quotes', "{'subject':'x'}"],
    ['trailing garbage', '{"subject":"x"} x'],
    ['an array', '[]'],
    ['an array of the right object', JSON.stringify([newTicket()])],
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
    ['nothing but spaces', '   '],
  ])('refuses %s with 400 invalid_json', async (_what, raw) => {
    for (const [method, path] of [
      ['POST', '/api/v1/tickets'],
      ['PATCH', `/api/v1/tickets/${ticketId}`],
      ['POST', `/api/v1/tickets/${ticketId}/messages`],
    ]) {
      expectError(await api.call(method, path, raw, { 'content-type': 'application/json' }), 400, 'invalid_json');
    }
  });
});

describe('order of checks: route → auth → size → JSON → exists → validation → authorization → conflict', () => {
  it('answers 404 for an unknown route before asking for a key', async () => {
    expectError(await client(app.baseUrl).post('/api/v1/tickets/x/y', 'not json'), 404, 'not_found');
  });

  it.each([false, true])('answers 401 to a known route without a key even with an oversized body (chunked: %s)', async (chunked) => {
    const res = await send('POST', '/api/v1/tickets', Buffer.alloc(5 * MiB, ' '), { chunked, key: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers 413 before looking at the JSON or the ticket', async () => {
    const res = await send('PATCH', `/api/v1/tickets/${UNKNOWN_TICKET}`, `{${' '.repeat(MiB)}`, { chunked: true });
    expect(res.status).toBe(413);
  });

  it('answers 415 and 400 invalid_json before looking at the ticket', async () => {
    expectError(await api.patch(`/api/v1/tickets/${UNKNOWN_TICKET}`, '{"status":', { 'content-type': 'application/json' }), 400, 'invalid_json');
    expectError(await api.post(`/api/v1/tickets/${UNKNOWN_TICKET}/messages`, '[1]', { 'content-type': 'application/json' }), 400, 'invalid_json');
    expectError(await api.patch(`/api/v1/tickets/${UNKNOWN_TICKET}`, 'status=open', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it('answers 404 for an unknown ticket before validating the body', async () => {
    expectError(await api.patch(`/api/v1/tickets/${UNKNOWN_TICKET}`, { status: 'bogus', foo: 1 }), 404, 'not_found');
    expectError(await api.patch(`/api/v1/tickets/${UNKNOWN_TICKET}`, {}), 404, 'not_found');
    expectError(await api.post(`/api/v1/tickets/${UNKNOWN_TICKET}/messages`, { direction: 'outbound' }), 404, 'not_found');
    expectError(await api.get(`/api/v1/tickets/${UNKNOWN_TICKET}/messages?limit=0&before=nonsense`), 404, 'not_found');
  });

  it('answers 400 for an invalid field before 403 for a non-member assignee', async () => {
    expectError(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'stranger', status: 'bogus' }), 400, 'validation_failed');
    expectError(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'stranger', foo: 1 }), 400, 'validation_failed');
  });

  it('answers 400 for a bad query before 403 for another workspace_id', async () => {
    const other = await createWorkspace(app.orm);
    expectError(await api.get(`/api/v1/tickets?per_page=0&workspace_id=${other.workspaceId}`), 400, 'validation_failed');
  });

  it('answers 400 for an invalid message before 409 for outbound', async () => {
    expectError(await api.post(`/api/v1/tickets/${ticketId}/messages`, { direction: 'outbound', body: '', senderEmail: 'a@b.c' }), 400, 'validation_failed');
    expectError(await api.post(`/api/v1/tickets/${ticketId}/messages`, { direction: 'outbound', body: 'x', senderEmail: 'a@b.c', foo: 1 }), 400, 'validation_failed');
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After once a key has used its burst, and other keys go on', async () => {
    const limited = await startTestApp({ config: { rateLimit: { perSecond: 0.001, burst: 3 } } });
    try {
      const [first, second] = [await createWorkspace(limited.orm), await createWorkspace(limited.orm)];
      const api1 = client(limited.baseUrl, first.key);
      for (let i = 0; i < 3; i++) expect((await api1.get('/api/v1/tickets')).status).toBe(200);
      const refused = await api1.post('/api/v1/tickets', newTicket());
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await client(limited.baseUrl, second.key).get('/api/v1/tickets')).status).toBe(200);
      expect((await client(limited.baseUrl, second.key).get('/api/v1/tickets')).body.pagination.total).toBe(0);
    } finally {
      await limited.close();
    }
  });
});

describe('database down', () => {
  it('answers 503 unavailable promptly instead of hanging, while /healthz stays up', async () => {
    const orm = await MikroORM.init({ ...ormConfig({ databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/nowhere` }), ensureDatabase: false });
    const down = createApp({ orm, config: { rateLimit: { perSecond: 0, burst: 0 } }, logger: createLogger('silent') });
    const server = await new Promise<Server>((resolve) => {
      const s = down.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const api = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, ws.key);
      expectError(await api.get('/api/v1/tickets'), 503, 'unavailable');
      expectError(await api.post('/api/v1/tickets', newTicket()), 503, 'unavailable');
      expectError(await api.get('/readyz'), 503, 'unavailable');
      expect((await api.get('/healthz')).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await orm.close();
    }
  });
});
