import { describe, expect, it } from 'vitest';
import { newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { CREATED_TICKET_FIELDS, expectError, expectOnly, expectValidation, ISO_UTC, keysOf, TICKET_FIELDS, UUID } from '../helpers/expect.ts';
import { allMessages, getTicket, newTicket } from '../helpers/api.ts';

const app = useTestApp();
const { api } = useWorkspace(app);

const create = (overrides: Record<string, unknown> = {}) => api.post('/api/v1/tickets', newTicket(overrides));

/** The check of an it.each row `[what, value]`: a ticket whose `field` is `value` is refused with 400 naming it. */
const refused = (field: string) => async (_what: string, value: unknown) => expectValidation(await create({ [field]: value }), field);

/** A ticket without `field` is refused with 400 naming it. */
async function expectRequired(field: string): Promise<void> {
  const { [field]: _omit, ...rest } = newTicket() as Record<string, unknown>;
  expectValidation(await api.post('/api/v1/tickets', rest), field);
}

/** A string of exactly `n` code points: `local@domain` with `n` characters in all. */
const emailOfLength = (n: number) => `${'a'.repeat(64)}@${'b'.repeat(n - 64 - 1 - 4)}.com`;

describe('POST /api/v1/tickets: the created ticket', () => {
  it('answers 201 { data } with exactly the eight creation fields and the defaults', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    expectOnly(res.body, 'data', CREATED_TICKET_FIELDS);
    expect(res.body.data).toMatchObject({
      subject: 'Printer is on fire',
      status: 'open',
      priority: 'medium',
      customerEmail: 'customer@example.com',
      customerName: 'Casey Customer',
      source: 'api',
    });
    expect(res.body.data.id).toMatch(UUID);
    expect(res.body.data.createdAt).toMatch(ISO_UTC);
  });

  it('reads back as a Ticket of exactly twelve fields, with assignedTo, tags and resolutionType defaulted', async () => {
    const created = (await create()).body.data;
    const ticket = await getTicket(api, created.id);
    expect(keysOf(ticket)).toEqual(TICKET_FIELDS);
    expect(ticket).toEqual({
      ...created,
      assignedTo: null,
      tags: [],
      resolutionType: null,
      updatedAt: created.createdAt,
    });
  });

  it('stores the body as the initial inbound message from the customer', async () => {
    const created = (await create({ body: 'First words', customerName: 'Ann' })).body.data;
    const messages = await allMessages(api, created.id);
    expect(messages.total).toBe(1);
    expect(messages.data).toEqual([
      expect.objectContaining({
        ticketId: created.id,
        direction: 'inbound',
        senderEmail: 'customer@example.com',
        senderName: 'Ann',
        body: 'First words',
        bodyHtml: null,
        createdAt: created.createdAt,
      }),
    ]);
  });

  it.each(['email', 'widget', 'api'])('accepts source %s', async (source) => {
    const res = await create({ source });
    expect(res.status).toBe(201);
    expect(res.body.data.source).toBe(source);
  });

  it.each(['phone', 'API', '', null, 1])('rejects source %j', async (source) => {
    expectValidation(await create({ source }), 'source');
  });

  it('treats customerName as optional (null when absent or null)', async () => {
    const { customerName: _omit, ...withoutName } = newTicket();
    const absent = await api.post('/api/v1/tickets', withoutName);
    expect(absent.status).toBe(201);
    expect(absent.body.data.customerName).toBeNull();
    const explicitNull = await create({ customerName: null });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body.data.customerName).toBeNull();
  });
});

describe('POST /api/v1/tickets: subject', () => {
  it('accepts 500 code points, counting an emoji as one', async () => {
    const subject = '😀'.repeat(500);
    const res = await create({ subject });
    expect(res.status).toBe(201);
    expect((await getTicket(api, res.body.data.id)).subject).toBe(subject);
    expect((await create({ subject: 'a'.repeat(500) })).status).toBe(201);
  });

  it('accepts a single character', async () => {
    expect((await create({ subject: 'x' })).status).toBe(201);
  });

  it.each([
    ['501 emoji', '😀'.repeat(501)],
    ['501 letters', 'a'.repeat(501)],
    ['empty', ''],
    ['whitespace only', ' \t\n  '],
    ['a number', 42],
    ['null', null],
  ])('rejects a subject that is %s', refused('subject'));

  it('requires a subject', () => expectRequired('subject'));
});

describe('POST /api/v1/tickets: body', () => {
  it('accepts 100,000 code points (emoji count one each)', async () => {
    const body = '😀'.repeat(100_000);
    const res = await create({ body });
    expect(res.status).toBe(201);
    expect((await allMessages(api, res.body.data.id)).data[0].body).toBe(body);
    expect((await create({ body: 'b'.repeat(100_000) })).status).toBe(201);
  });

  it.each([
    ['100,001 characters', 'b'.repeat(100_001)],
    ['100,001 emoji', '😀'.repeat(100_001)],
    ['empty', ''],
    ['whitespace only', '   \n '],
    ['not a string', ['hello']],
  ])('rejects a body that is %s', refused('body'));

  it('requires a body', () => expectRequired('body'));
});

describe('POST /api/v1/tickets: customerEmail', () => {
  it('accepts 320 characters and rejects 321', async () => {
    const ok = await create({ customerEmail: emailOfLength(320) });
    expect(ok.status).toBe(201);
    expect(ok.body.data.customerEmail).toBe(emailOfLength(320));
    expectValidation(await create({ customerEmail: emailOfLength(321) }), 'customerEmail');
  });

  it('trims surrounding spaces before storing and before measuring', async () => {
    const res = await create({ customerEmail: `  ${emailOfLength(320)}\t ` });
    expect(res.status).toBe(201);
    expect(res.body.data.customerEmail).toBe(emailOfLength(320));
    expect((await getTicket(api, res.body.data.id)).customerEmail).toBe(emailOfLength(320));
  });

  it.each([
    ['no @', 'customer.example.com'],
    ['two @', 'a@b@example.com'],
    ['a space inside', 'cus tomer@example.com'],
    ['an empty local part', '@example.com'],
    ['an empty domain', 'customer@'],
    ['empty', ''],
    ['spaces only', '   '],
    ['a number', 7],
    ['null', null],
  ])('rejects an address with %s', refused('customerEmail'));

  it('requires a customerEmail', () => expectRequired('customerEmail'));
});

describe('POST /api/v1/tickets: customerName', () => {
  it('accepts 200 code points and rejects 201', async () => {
    const name = '😀'.repeat(200);
    const ok = await create({ customerName: name });
    expect(ok.status).toBe(201);
    expect(ok.body.data.customerName).toBe(name);
    expectValidation(await create({ customerName: 'n'.repeat(201) }), 'customerName', /at most 200 characters \(got 201\)/);
    expectValidation(await create({ customerName: '😀'.repeat(201) }), 'customerName', /at most 200 characters \(got 201\)/);
  });

  it('rejects a customerName that is not a string', async () => {
    expectValidation(await create({ customerName: 12 }), 'customerName', /must be a string or null/);
  });
});

describe('POST /api/v1/tickets: language', () => {
  it.each(['en', 'deu'])('accepts %s and never returns it', async (language) => {
    const res = await create({ language });
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('language');
    expect(await getTicket(api, res.body.data.id)).not.toHaveProperty('language');
  });

  it.each(['e', 'deut', 'EN', 'En', 'e1', 'en ', ' en', 'en\n', 'é', '', null, 12])('rejects %j', async (language) => {
    expectValidation(await create({ language }), 'language');
  });
});

describe('POST /api/v1/tickets: fields not listed', () => {
  it('rejects an unknown field with 400 validation_failed naming it', async () => {
    expectValidation(await create({ foo: 'bar' }), 'foo');
  });

  it.each(['status', 'priority', 'assignedTo', 'tags', 'resolutionType', 'id', 'workspaceId'])(
    'rejects %s, which creation does not take',
    async (field) => {
      expectValidation(await create({ [field]: 'x' }), field);
    },
  );

  it('creates nothing when the request is rejected', async () => {
    const { ws, api: own } = await newWorkspace(app);
    expectError(await own.post('/api/v1/tickets', newTicket({ subject: '' })), 400, 'validation_failed');
    expect((await own.get('/api/v1/tickets')).body.pagination.total).toBe(0);
  });
});

describe('POST /api/v1/tickets: text the database cannot store', () => {
  it.each(['subject', 'body', 'customerName', 'customerEmail'])('rejects a NUL character in %s with 400, not 500', async (field) => {
    const value = field === 'customerEmail' ? 'cust\u0000omer@example.com' : 'before\u0000after';
    expectValidation(await create({ [field]: value }), field);
  });

  it.each(['subject', 'body', 'customerName', 'customerEmail'])('rejects an unpaired surrogate in %s with 400, not 500', async (field) => {
    const value = field === 'customerEmail' ? 'cust\ud83domer@example.com' : 'broken \udfff emoji';
    expectValidation(await create({ [field]: value }), field);
  });

  it('keeps paired surrogates (emoji) and other control-free unicode intact', async () => {
    const subject = 'Ünïcødé 😀 👩‍👩‍👧 \u202e RTL';
    const res = await create({ subject, customerName: 'Zoë 😀' });
    expect(res.status).toBe(201);
    expect(await getTicket(api, res.body.data.id)).toMatchObject({ subject, customerName: 'Zoë 😀' });
  });
});
