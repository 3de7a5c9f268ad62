import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/workspaces/keys.ts';
import { client, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectJson, expectRevokedKeyRefused, expectUnauthorized } from '../helpers/expect.ts';
import { createTicket, newTicket } from '../helpers/api.ts';

const app = useTestApp();
const { ws } = useWorkspace(app);
let ticketId: string;
beforeAll(async () => {
  ticketId = (await createTicket(client(app.baseUrl, ws.key))).id;
});

/** Every endpoint of the tickets interface, with a body that would succeed. */
const endpoints = () => [
  ['GET', '/api/v1/tickets', undefined],
  ['POST', '/api/v1/tickets', newTicket()],
  ['GET', `/api/v1/tickets/${ticketId}`, undefined],
  ['PATCH', `/api/v1/tickets/${ticketId}`, { priority: 'high' }],
  ['GET', `/api/v1/tickets/${ticketId}/messages`, undefined],
  ['POST', `/api/v1/tickets/${ticketId}/messages`, { body: 'hi', senderEmail: 'customer@example.com' }],
] as const;

const expectUnauthorizedEverywhere = (headers: Record<string, string>) => expectUnauthorized(app.baseUrl, endpoints(), headers);

describe('authentication', () => {
  it('refuses a request without Authorization on every endpoint with 401 and WWW-Authenticate: Bearer', async () => {
    await expectUnauthorizedEverywhere({});
  });

  it.each([
    ['another scheme', () => `Basic ${Buffer.from(`user:${ws.key}`).toString('base64')}`],
    ['the key alone', () => ws.key],
    ['Token instead of Bearer', () => `Token ${ws.key}`],
    ['Bearer without a key', () => 'Bearer'],
    ['Bearer and spaces', () => 'Bearer    '],
    ['two keys', () => `Bearer ${ws.key} ${ws.key}`],
    ['a malformed key', () => 'Bearer not-a-key'],
    ['a truncated key', () => `Bearer ${ws.key.slice(0, -1)}`],
    ['a key of the right shape that was never issued', () => `Bearer ${generateKey().key}`],
    ['a known lookup with the wrong secret', () => `Bearer ${ws.key.slice(0, 21)}${generateKey().key.slice(21)}`],
  ])('refuses %s', async (_what, header) => {
    await expectUnauthorizedEverywhere({ authorization: header() });
  });

  it('accepts the scheme in any letter case and surrounding spaces around the key', async () => {
    const res = await client(app.baseUrl).get('/api/v1/tickets', { authorization: `bearer   ${ws.key} ` });
    expect(res.status).toBe(200);
  });

  it('refuses a revoked key from then on, while another key of the workspace keeps working', async () => {
    await expectRevokedKeyRefused(app, ws, endpoints(), { before: '/api/v1/tickets', after: `/api/v1/tickets/${ticketId}` });
  });

  it('changes nothing on a refused write', async () => {
    const api = client(app.baseUrl, ws.key);
    const before = (await api.get(`/api/v1/tickets/${ticketId}`)).body.data;
    const total = (await api.get('/api/v1/tickets')).body.pagination.total;
    await expectUnauthorizedEverywhere({ authorization: 'Bearer nope' });
    expect((await api.get(`/api/v1/tickets/${ticketId}`)).body.data).toEqual(before);
    expect((await api.get('/api/v1/tickets')).body.pagination.total).toBe(total);
  });
});

describe('routes outside authentication', () => {
  it('answers /healthz and /readyz without a key', async () => {
    const api = client(app.baseUrl);
    expect(await api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await api.get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it.each([
    ['GET', '/'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/nothing'],
    ['GET', '/api/v2/tickets'],
    ['GET', '/api/v1/tickets/x/y'],
    ['GET', '/api/v1/tickets/x/messages/y'],
    ['DELETE', '/api/v1/tickets/00000000-0000-4000-8000-000000000000'],
    ['PUT', '/api/v1/tickets/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/api/v1/tickets'],
  ])('answers an unknown route %s %s with a JSON 404, with or without a key', async (method, path) => {
    for (const api of [client(app.baseUrl), client(app.baseUrl, ws.key)]) {
      const res = await api.call(method, path);
      expectError(res, 404, 'not_found');
      expectJson(res);
    }
  });
});
