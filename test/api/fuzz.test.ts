import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, sendJson, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectErrorShape, keysOf, CREATED_TICKET_FIELDS, MESSAGE_FIELDS, TICKET_FIELDS } from '../helpers/expect.ts';
import { createTicket } from '../helpers/api.ts';

const NUM_RUNS = 100;

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'agent-1' }]);
let ticketId: string;
let messageId: string;
beforeAll(async () => {
  ticketId = (await createTicket(api)).id;
  messageId = (await api.get(`/api/v1/tickets/${ticketId}/messages`)).body.data[0].id;
});

/** Never a 5xx, always JSON; a 4xx carries the error shape; a success carries the documented fields. */
function expectWellFormed(res: ApiResponse, success: (body: any) => void): void {
  expect(res.status, JSON.stringify(res.body)?.slice(0, 500)).toBeLessThan(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  if (res.status >= 400) expectErrorShape(res.body);
  else success(res.body);
}

/** Strings that probe edges: unicode, NUL and control characters, lone surrogates, long and blank text. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme', maxLength: 600 }),
  fc.tuple(fc.string(), fc.constantFrom('\u0000', '\u0001', '\u007f', '\ufeff', '\u202e', '\ud83d'), fc.string()).map((parts) => parts.join('')),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff x', '😀'.repeat(501), 'x'.repeat(321), '  a@b.c  ', 'a@b', '@', 'ai', 'AI', '__proto__', 'constructor', 'null', '0', '-1', '1e999'),
);
const value = fc.oneof(
  { weight: 3, arbitrary: text },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(text, text, { maxKeys: 3 }),
);
/** Objects whose keys are mostly the fields of the endpoint, with plausible or hostile values. */
const objectWith = (fields: string[], plausible: Record<string, fc.Arbitrary<unknown>>) =>
  fc.dictionary(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, fc.constantFrom('__proto__', 'constructor', 'foo', ''), fc.string()),
    fc.oneof(...Object.values(plausible), value),
    { maxKeys: 8 },
  );
/** Mostly a valid base with one field replaced, sometimes several changes, sometimes anything JSON can carry. */
const body = (base: Record<string, unknown>, fields: string[], plausible: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...fields), fc.oneof(text, value)).map(([field, v]) => ({ ...base, [field]: v })) },
    { weight: 2, arbitrary: objectWith(fields, plausible).map((o) => ({ ...base, ...o })) },
    { weight: 2, arbitrary: objectWith(fields, plausible) },
    { weight: 1, arbitrary: fc.jsonValue() },
    { weight: 1, arbitrary: fc.anything() },
  );

const STATUS = fc.constantFrom('open', 'pending', 'escalated', 'solved', 'closed', 'Open', '');
const PRIORITY = fc.constantFrom('low', 'medium', 'high', 'urgent', 'critical');

describe('random request bodies never produce a 5xx', () => {
  it('POST /api/v1/tickets', async () => {
    const fields = ['subject', 'customerEmail', 'customerName', 'body', 'source', 'language'];
    const plausible = {
      email: fc.emailAddress(),
      source: fc.constantFrom('email', 'widget', 'api', 'fax'),
      language: fc.constantFrom('en', 'deu', 'EN', 'e'),
    };
    const base = { subject: 'Fuzz', customerEmail: 'fuzz@example.com', body: 'Fuzz body' };
    await fc.assert(
      fc.asyncProperty(body(base, fields, plausible), async (payload) => {
        expectWellFormed(await sendJson(api, 'POST', '/api/v1/tickets', payload), (b) => expect(keysOf(b.data)).toEqual(CREATED_TICKET_FIELDS));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('PATCH /api/v1/tickets/:id', async () => {
    const fields = ['status', 'priority', 'assignedTo'];
    const plausible = { status: STATUS, priority: PRIORITY, assignedTo: fc.constantFrom('agent-1', 'ai', 'stranger', ' agent-1', 'a\u0001b') };
    await fc.assert(
      fc.asyncProperty(body({}, fields, plausible), async (payload) => {
        expectWellFormed(await sendJson(api, 'PATCH', `/api/v1/tickets/${ticketId}`, payload), (b) => expect(keysOf(b.data)).toEqual(TICKET_FIELDS));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /api/v1/tickets/:id/messages', async () => {
    const fields = ['body', 'senderEmail', 'senderName', 'direction', 'bodyHtml'];
    const plausible = {
      email: fc.oneof(fc.emailAddress(), fc.constant('customer@example.com')),
      direction: fc.constantFrom('inbound', 'outbound', 'INBOUND'),
    };
    const base = { body: 'Fuzz reply', senderEmail: 'customer@example.com' };
    await fc.assert(
      fc.asyncProperty(body(base, fields, plausible), async (payload) => {
        expectWellFormed(await sendJson(api, 'POST', `/api/v1/tickets/${ticketId}/messages`, payload), (b) => {
          expect(keysOf(b)).toEqual(['data', 'meta']);
          expect(keysOf(b.data)).toEqual(MESSAGE_FIELDS);
          expect(['emitted', 'skipped_sender_mismatch']).toContain(b.meta.messageAddedEvent);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  describe('the desk\'s other write endpoints', () => {
    const METRIC = fc.constantFrom('first_reply', 'next_reply', 'resolution', 'first_response');
    const target = fc.record(
      { metric: METRIC, priority: PRIORITY, seconds: fc.oneof(fc.integer(), fc.double(), value), warnBeforeSeconds: fc.oneof(fc.integer(), value) },
      { requiredKeys: [] },
    );
    const condition = fc.record(
      { field: fc.constantFrom('ticket.tags', 'ticket.priority', 'ticket.subject', 'message.body', 'tags'), operator: fc.constantFrom('contains', 'equals', 'in', 'changed_to', 'x'), value },
      { requiredKeys: [] },
    );
    const match = fc.oneof(condition, fc.record({ match: fc.constantFrom('all', 'any', 'none'), conditions: fc.array(condition, { maxLength: 3 }) }), value);
    const policyFields = ['name', 'description', 'isActive', 'position', 'match', 'calendarId', 'targets', 'pauseOn'];
    const policyPlausible = { targets: fc.array(target, { maxLength: 4 }), match, pauseOn: fc.array(STATUS, { maxLength: 3 }), position: fc.integer() };
    const policyBase = { name: 'Fuzz', targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 60 }] };
    const cases: Array<[method: string, path: string, base: Record<string, unknown>, fields: string[], plausible: Record<string, fc.Arbitrary<unknown>>]> = [
      ['POST', '/api/v1/tickets/:id/notes', { authorId: 'agent-1', body: 'A note' }, ['authorId', 'body'], { authorId: fc.constantFrom('agent-1', 'ai', 'stranger') }],
      ['POST', '/api/v1/tickets/:id/tags', { tag: 'vip' }, ['tag'], { tag: fc.constantFrom('vip', ' vip ', 'x'.repeat(101)) }],
      ['POST', '/api/sla-policies', policyBase, policyFields, policyPlausible],
      ['POST', '/api/sla-policies/backtest', { policy: policyBase, days: 7 }, ['policy', 'days'], { policy: fc.oneof(fc.constant(policyBase), objectWith(policyFields, policyPlausible)), days: fc.integer() }],
      ['POST', '/api/knowledge', { title: 'Fuzz', body: 'Fuzz body' }, ['title', 'body', 'language', 'tags'], { language: fc.constantFrom('en', 'de', 'EN', 'xx'), tags: fc.array(text, { maxLength: 3 }) }],
      [
        'PATCH',
        '/api/ai',
        { instructions: 'Be brief.' },
        ['enabled', 'model', 'instructions', 'handoffTo', 'minScore', 'maxRepliesPerTicket', 'autoSend', 'senderName'],
        {
          model: fc.oneof(fc.record({ baseUrl: fc.constantFrom('https://api.example.com/v1', 'http://127.0.0.1:1/v1', 'ftp://x', ''), model: text, apiKey: text }, { requiredKeys: [] }), value),
          minScore: fc.oneof(fc.double(), value),
          handoffTo: fc.constantFrom('agent-1', 'stranger', null),
        },
      ],
    ];
    it.each(cases)('%s %s', async (method, path, base, fields, plausible) => {
      await fc.assert(
        fc.asyncProperty(body(base, fields, plausible), async (payload) => {
          expectWellFormed(await sendJson(api, method, path.replace(':id', ticketId), payload), () => {});
        }),
        { numRuns: NUM_RUNS },
      );
    });
  });

  it('raw text sent as JSON to every write endpoint', async () => {
    const paths = [
      ['POST', '/api/v1/tickets'],
      ['PATCH', `/api/v1/tickets/${ticketId}`],
      ['POST', `/api/v1/tickets/${ticketId}/messages`],
    ] as const;
    const raw = fc.oneof(fc.string({ unit: 'binary' }), fc.json().map((j) => j.slice(0, -1)), fc.constantFrom('{', '{"a":}', '{"subject":"\\ud800"}', '\ufeff{}'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), raw, async ([method, path], text) => {
        expectWellFormed(await api.call(method, path, text, { 'content-type': 'application/json' }), () => {});
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('random query strings never produce a 5xx', () => {
  const queryValue = fc.oneof(
    text,
    fc.integer().map(String),
    fc.constantFrom('1', '20', '100', '101', '200', '201', '0', '', 'open', '2026-02-30', '2026-01-01T00:00:00+99:99', '0000-01-01'),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.uuid(),
  );
  const query = (keys: string[]) =>
    fc
      .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, fc.string()), queryValue), { maxLength: 6 })
      .map((pairs) => new URLSearchParams(pairs).toString());

  it('GET /api/v1/tickets', async () => {
    await fc.assert(
      fc.asyncProperty(query(['page', 'per_page', 'status', 'workspace_id', 'q', 'customer_email', 'assigned_to', 'priority', 'tag', 'source', 'sort']), async (qs) => {
        expectWellFormed(await api.get(`/api/v1/tickets?${qs}`), (b) => {
          expect(keysOf(b)).toEqual(['data', 'pagination']);
          expect(b.data.length).toBeLessThanOrEqual(b.pagination.perPage);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET /api/v1/tickets/:id/messages', async () => {
    const withCursor = query(['limit', 'before']).chain((qs) => fc.constantFrom(qs, `${qs}&before=${messageId}`));
    await fc.assert(
      fc.asyncProperty(withCursor, async (qs) => {
        expectWellFormed(await api.get(`/api/v1/tickets/${ticketId}/messages?${qs}`), (b) => {
          expect(keysOf(b)).toEqual(['data', 'total', 'truncated']);
          expect(typeof b.truncated).toBe('boolean');
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each([
    ['/api/knowledge/search', ['q', 'language', 'limit'], 'results'],
    ['/api/approvals', ['status', 'approver', 'limit', 'before'], 'approvals'],
    ['/api/sla/tickets', ['status', 'metric', 'limit', 'before'], 'data'],
  ])('GET %s', async (path, keys, list) => {
    await fc.assert(
      fc.asyncProperty(query(keys), async (qs) => {
        expectWellFormed(await api.get(`${path}?${qs}`), (b) => {
          expect(keysOf(b)).toEqual([list]);
          expect(Array.isArray(b[list])).toBe(true);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('random ticket ids in the path', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ minLength: 1 }), fc.uuid()), async (id) => {
        const path = `/api/v1/tickets/${encodeURIComponent(id)}`;
        expectWellFormed(await api.get(path), () => {});
        expectWellFormed(await api.get(`${path}/messages`), () => {});
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
