import { beforeAll, describe, expect, it } from 'vitest';
import { API_ACTOR } from '../../src/actor.ts';
import { createServices } from '../../src/services.ts';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, keysOf, MESSAGE_FIELDS } from '../helpers/expect.ts';
import { createTicket } from '../helpers/api.ts';

const app = useTestApp();
const { ws, api } = useWorkspace(app);
/** A ticket with 151 messages: the initial one ("initial") and "m2" … "m151", in that order. */
let big: { id: string; messageIds: string[] };
beforeAll(async () => {
  const { id } = await createTicket(api, { body: 'initial' });
  const messages = createServices(app.orm.em.fork()).messages;
  for (let i = 2; i <= 151; i++) {
    await messages.add(ws.workspaceId, id, { body: `m${i}`, senderEmail: 'customer@example.com', direction: 'inbound' }, API_ACTOR);
  }
  const all = await api.get(`/api/v1/tickets/${id}/messages?limit=200`);
  big = { id, messageIds: all.body.data.map((m: { id: string }) => m.id) };
});

const listBig = (query = '') => api.get(`/api/v1/tickets/${big.id}/messages${query}`);
const bodies = (res: { body: { data: Array<{ body: string }> } }) => res.body.data.map((m) => m.body);
/** The bodies of messages `from`..`to` (1-based positions) of the big ticket. */
const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => (from + i === 1 ? 'initial' : `m${from + i}`));

describe('GET /api/v1/tickets/:id/messages', () => {
  it('lists a new ticket\'s initial message, counted in total', async () => {
    const { id } = await createTicket(api, { body: 'hello' });
    const res = await api.get(`/api/v1/tickets/${id}/messages`);
    expect(res.status).toBe(200);
    expect(keysOf(res.body)).toEqual(['data', 'total', 'truncated']);
    expect(res.body.total).toBe(1);
    expect(res.body.truncated).toBe(false);
    expect(res.body.data).toHaveLength(1);
    expect(keysOf(res.body.data[0])).toEqual(MESSAGE_FIELDS);
    expect(res.body.data[0]).toMatchObject({ ticketId: id, body: 'hello', direction: 'inbound' });
  });

  it('selects the newest 100 by default and returns them oldest first', async () => {
    const res = await listBig();
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(151);
    expect(res.body.truncated).toBe(true);
    expect(bodies(res)).toEqual(range(52, 151));
  });

  it.each([
    [1, range(151, 151), true],
    [150, range(2, 151), true],
    [151, range(1, 151), false],
    [200, range(1, 151), false],
  ])('with limit=%i returns the newest window and says whether older messages were left out', async (limit, expected, truncated) => {
    const res = await listBig(`?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(bodies(res)).toEqual(expected);
    expect(res.body).toMatchObject({ total: 151, truncated });
  });

  it('answers 404 for an unknown ticket, before looking at the query', async () => {
    expectError(await api.get('/api/v1/tickets/00000000-0000-4000-8000-000000000000/messages'), 404, 'not_found');
    expectError(await api.get('/api/v1/tickets/00000000-0000-4000-8000-000000000000/messages?limit=0'), 404, 'not_found');
    expectError(await api.get('/api/v1/tickets/bogus/messages'), 404, 'not_found');
  });
});

describe('GET /api/v1/tickets/:id/messages: limit', () => {
  it.each(['0', '000', '0201', '201', '-1', 'x', '1.5', '', ' 5', '1e2', '99999999999999999999'])('rejects limit=%j with 400', async (limit) => {
    expectValidation(await listBig(`?limit=${encodeURIComponent(limit)}`), 'limit');
  });

  it('reads a limit with leading zeros as the same integer', async () => {
    const res = await listBig('?limit=007');
    expect(res.status).toBe(200);
    expect(bodies(res)).toEqual(range(145, 151));
  });

  it('rejects a repeated limit with 400', async () => {
    expectValidation(await listBig('?limit=5&limit=5'), 'limit');
  });
});

describe('GET /api/v1/tickets/:id/messages: before as a message id', () => {
  it('selects strictly older messages', async () => {
    const res = await listBig(`?before=${big.messageIds[51]}`);
    expect(bodies(res)).toEqual(range(1, 51));
    expect(res.body).toMatchObject({ total: 151, truncated: false });
  });

  it('combines with limit and reports older messages beyond the window', async () => {
    const res = await listBig(`?before=${big.messageIds[52]}&limit=51`);
    expect(bodies(res)).toEqual(range(2, 52));
    expect(res.body).toMatchObject({ total: 151, truncated: true });
  });

  it('is empty before the first message', async () => {
    const res = await listBig(`?before=${big.messageIds[0]}`);
    expect(res.body).toEqual({ data: [], total: 151, truncated: false });
  });

  it('accepts the id in upper case', async () => {
    const res = await listBig(`?before=${big.messageIds[3].toUpperCase()}`);
    expect(bodies(res)).toEqual(range(1, 3));
  });

  it('refuses a message id of another ticket with 400', async () => {
    const other = await createTicket(api);
    const otherMessage = (await api.get(`/api/v1/tickets/${other.id}/messages`)).body.data[0].id;
    expectValidation(await listBig(`?before=${otherMessage}`), 'before');
    expectValidation(await api.get(`/api/v1/tickets/${other.id}/messages?before=${big.messageIds[5]}`), 'before');
  });

  it('refuses an id that names no message with 400', async () => {
    expectValidation(await listBig('?before=00000000-0000-4000-8000-000000000000'), 'before');
    expectValidation(await listBig(`?before=${big.id}`), 'before');
  });
});

describe('GET /api/v1/tickets/:id/messages: before as a timestamp', () => {
  /** Five messages at known instants (the initial one included). */
  const AT = ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-03T12:00:00.000Z', '2026-01-04T00:00:00.000Z'];
  let ticketId: string;
  beforeAll(async () => {
    ticketId = (await createTicket(api, { body: 't1' })).id;
    for (let i = 2; i <= AT.length; i++) {
      expect((await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: `t${i}`, senderEmail: 'customer@example.com' })).status).toBe(201);
    }
    const em = app.orm.em.fork();
    for (const [i, at] of AT.entries()) {
      await em.getConnection().execute('update messages set created_at = ? where ticket_id = ? and seq = ?', [at, ticketId, i + 1]);
    }
  });
  const before = (value: string, limit?: number) =>
    api.get(`/api/v1/tickets/${ticketId}/messages?before=${encodeURIComponent(value)}${limit ? `&limit=${limit}` : ''}`);

  it('reports each message at its stored instant', async () => {
    const res = await api.get(`/api/v1/tickets/${ticketId}/messages`);
    expect(res.body.data.map((m: { createdAt: string }) => m.createdAt)).toEqual(AT);
  });

  it.each([
    ['a date (midnight UTC)', '2026-01-03', ['t1', 't2']],
    ['a Z date-time, exclusive', '2026-01-03T00:00:00Z', ['t1', 't2']],
    ['a Z date-time a millisecond later', '2026-01-03T00:00:00.001Z', ['t1', 't2', 't3']],
    ['a fraction finer than a millisecond', '2026-01-03T00:00:00.0001Z', ['t1', 't2', 't3']],
    ['a positive offset', '2026-01-03T02:00:00+02:00', ['t1', 't2']],
    ['a negative offset', '2026-01-02T19:00:00-05:00', ['t1', 't2']],
    ['an offset without colon', '2026-01-03T13:00:00+0100', ['t1', 't2', 't3']],
    ['an offset of +14:00', '2026-01-04T02:00:00+14:00', ['t1', 't2', 't3']],
    ['an offset of -23:59', '2026-01-02T00:01:00-23:59', ['t1', 't2']],
    ['minutes without seconds', '2026-01-03T12:00Z', ['t1', 't2', 't3']],
    ['a time before every message', '2025-12-31T23:59:59.999Z', []],
    ['the first day of year 1', '0001-01-01', []],
    ['the last second of year 9999', '9999-12-31T23:59:59Z', ['t1', 't2', 't3', 't4', 't5']],
    ['a leap day', '2024-02-29', []],
    ['a fraction that rounds into the next day', '2026-01-02T23:59:59.9999+00:00', ['t1', 't2']],
    ['an offset that stays within year 1', '0001-01-01T23:00:00+23:00', []],
    ['an offset that stays within year 9999', '9999-12-31T00:00:00-23:59', ['t1', 't2', 't3', 't4', 't5']],
    ['lower-case separators', '2026-01-03t00:00:00.001z', ['t1', 't2', 't3']],
  ])('accepts %s (%s)', async (_what, value, expected) => {
    const res = await before(value);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(bodies(res)).toEqual(expected);
    expect(res.body.total).toBe(5);
    expect(res.body.truncated).toBe(false);
  });

  it('returns the newest window before the instant, with truncated when older ones exist', async () => {
    const res = await before('2026-01-04', 2);
    expect(bodies(res)).toEqual(['t3', 't4']);
    expect(res.body).toMatchObject({ total: 5, truncated: true });
  });

  it.each([
    'yesterday',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-01-32',
    '0000-01-01',
    '2026-1-1',
    '20260101',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60:00Z',
    '2026-01-01T10:00:61Z',
    '2026-01-01T10:00:00',
    '2026-01-01T10:00:00+25:00',
    '2026-01-01T10:00:00+02:60',
    '2026-01-01 10:00:00Z',
    '+275760-09-13T00:00:00Z',
    '10000-01-01',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59-00:01',
    '2026-01-01T10:00:00ZZ',
    '1767225600000',
    '',
    'not-a-uuid-or-date',
  ])('rejects %j with 400', async (value) => {
    expectValidation(await before(value), 'before');
  });

  it('rejects a repeated before with 400', async () => {
    expectValidation(await api.get(`/api/v1/tickets/${ticketId}/messages?before=2026-01-03&before=2026-01-04`), 'before');
  });
});
