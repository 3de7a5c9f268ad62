import { describe, expect, it } from 'vitest';
import { client, type Client, createWorkspace, newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, UUID } from '../helpers/expect.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { CREATED_WORKFLOW_FIELDS, TRIGGER_TYPES } from '../helpers/workflows.ts';
import { createWorkflow, expectStatus, getWorkflow, listWorkflows, uniqueName } from '../helpers/api.ts';
import { defaultGraph, simpleGraph } from '../helpers/graphs.ts';

const MiB = 1024 * 1024;

const app = useTestApp();
const { ws, api } = useWorkspace(app);

const create = (body: unknown) => api.post('/api/workflows', body);

/** A workspace of its own, for tests that count what was (not) created. */
async function freshApi(): Promise<Client> {
  return (await newWorkspace(app)).api;
}

/** `value` as JSON of exactly `bytes` bytes, padded with spaces inside the object. */
function jsonOfSize(value: object, bytes: number): Buffer {
  const json = JSON.stringify(value);
  const padding = bytes - Buffer.byteLength(json);
  if (padding < 0) throw new Error(`${json.length} bytes do not fit in ${bytes}`);
  return Buffer.from(`${json.slice(0, -1)}${' '.repeat(padding)}}`);
}

const send = (body: Buffer | string, opts: { chunked?: boolean; contentType?: string } = {}) =>
  rawRequest(app.baseUrl, {
    method: 'POST',
    path: '/api/workflows',
    body,
    chunked: opts.chunked,
    headers: { authorization: `Bearer ${ws.key}`, 'content-type': opts.contentType ?? 'application/json' },
  });

describe('POST /api/workflows: the created workflow', () => {
  it('answers 201 { workflow } with exactly id, name, description, triggerType, isActive, version, createdAt', async () => {
    const res = await create({ name: 'Tag VIPs', description: 'Tags tickets of VIP customers' });
    expectStatus(res, 201);
    expectJson(res);
    expectOnly(res.body, 'workflow', CREATED_WORKFLOW_FIELDS);
    expect(res.body.workflow).toMatchObject({
      name: 'Tag VIPs',
      description: 'Tags tickets of VIP customers',
      triggerType: 'ticket_created',
      isActive: false,
      version: 1,
    });
    expect(res.body.workflow.id).toMatch(UUID);
    expect(res.body.workflow.createdAt).toMatch(ISO_UTC);
  });

  it('creates the workflow inactive at version 1 even when a graph is given', async () => {
    const res = await create({ name: uniqueName(), workflowJson: simpleGraph() });
    expectStatus(res, 201);
    expect(res.body.workflow).toMatchObject({ isActive: false, version: 1 });
  });

  it('defaults triggerType to ticket_created', async () => {
    const created = await createWorkflow(api);
    expect(created.triggerType).toBe('ticket_created');
    expect((await getWorkflow(api, created.id)).triggerType).toBe('ticket_created');
  });

  it('gives ids that differ from one workflow to the next', async () => {
    const a = await createWorkflow(api);
    const b = await createWorkflow(api);
    expect(a.id).not.toBe(b.id);
  });

  it('reads back by GET with the same fields it was created with', async () => {
    const created = await createWorkflow(api, { description: 'described', triggerType: 'manual' });
    const read = await getWorkflow(api, created.id);
    expect(read).toMatchObject(created);
    expect(read.updatedAt).toBe(created.createdAt);
  });

  it('answers description null when none was given', async () => {
    const created = await createWorkflow(api);
    expect(created.description).toBeNull();
    expect((await getWorkflow(api, created.id)).description).toBeNull();
  });

  it.each(TRIGGER_TYPES)('accepts triggerType %s and gives it the default one-node graph', async (triggerType) => {
    const res = await create({ name: uniqueName(), triggerType });
    expectStatus(res, 201);
    expect(res.body.workflow.triggerType).toBe(triggerType);
    const read = await getWorkflow(api, res.body.workflow.id);
    expect(read.triggerType).toBe(triggerType);
    expect(read.workflowJson).toEqual(defaultGraph(triggerType));
  });

  it('gives a workflow created without workflowJson the graph { nodes: [trigger], edges: [] }', async () => {
    const created = await createWorkflow(api);
    expect((await getWorkflow(api, created.id)).workflowJson).toEqual({
      nodes: [{ id: 'trigger', type: 'trigger', data: { triggerType: 'ticket_created' } }],
      edges: [],
    });
  });

  it('keeps a given workflowJson as sent', async () => {
    const graph = simpleGraph('manual');
    const created = await createWorkflow(api, { triggerType: 'manual', workflowJson: graph });
    expect((await getWorkflow(api, created.id)).workflowJson).toEqual(graph);
  });
});

describe('POST /api/workflows: triggerType', () => {
  it.each(['ticket_deleted', 'TICKET_CREATED', 'Manual', '', ' manual', 42, null, ['manual'], { type: 'manual' }])(
    'refuses triggerType %j with 400 naming triggerType',
    async (triggerType) => {
      expectValidation(await create({ name: uniqueName(), triggerType }), 'triggerType');
    },
  );
});

describe('POST /api/workflows: a graph without triggerType', () => {
  it('gets the default ticket_created, and the 400 of its manual trigger node says so and what to send', async () => {
    const res = await create({ name: uniqueName(), workflowJson: simpleGraph('manual') });
    expectValidation(res, 'workflowJson.nodes[0].data.triggerType', /does not match the workflow's triggerType "ticket_created"; the request gives no triggerType, so the workflow has the default, "ticket_created": send "triggerType": "manual" to create a manual workflow$/);
    expect(res.body.error.message).toBe(
      'workflowJson is not a valid workflow graph: the request gives no triggerType, so the default, "ticket_created", applies, and the graph\'s trigger node is of another type.',
    );
  });

  it('keeps the plain answer when triggerType is given', async () => {
    const res = await create({ name: uniqueName(), triggerType: 'ticket_created', workflowJson: simpleGraph('manual') });
    expectValidation(res, 'workflowJson.nodes[0].data.triggerType', /does not match the workflow's triggerType "ticket_created"$/);
    expect(res.body.error.message).toBe('workflowJson is not a valid workflow graph.');
  });
});

describe('POST /api/workflows: name', () => {
  it('requires a name', async () => {
    expectValidation(await create({ description: 'no name' }), 'name');
    expectValidation(await create({}), 'name');
  });

  it('accepts 200 characters, counting an emoji as one', async () => {
    const name = '😀'.repeat(200);
    const res = await create({ name });
    expectStatus(res, 201);
    expect(res.body.workflow.name).toBe(name);
    expect((await getWorkflow(api, res.body.workflow.id)).name).toBe(name);
  });

  it('accepts 200 ASCII characters and a single character', async () => {
    expectStatus(await create({ name: 'n'.repeat(200) }), 201);
    expectStatus(await create({ name: 'n' }), 201);
  });

  it.each([
    ['201 emoji', '😀'.repeat(201)],
    ['201 ASCII characters', 'n'.repeat(201)],
    ['an empty string', ''],
    ['spaces only', '   '],
    ['tabs and newlines only', '\t\n \r\n'],
  ])('refuses %s with 400 naming name', async (_what, name) => {
    expectValidation(await create({ name }), 'name');
  });

  it.each([null, 42, true, ['a'], { text: 'a' }])('refuses a name of %j with 400', async (name) => {
    expectValidation(await create({ name }), 'name');
  });

  it('creates nothing when the name is refused', async () => {
    const own = await freshApi();
    expectValidation(await own.post('/api/workflows', { name: '😀'.repeat(201) }), 'name');
    expect(await listWorkflows(own)).toEqual([]);
  });
});

describe('POST /api/workflows: description', () => {
  it('accepts 2,000 characters (emoji counting one)', async () => {
    for (const description of ['d'.repeat(2_000), '😀'.repeat(2_000)]) {
      const res = await create({ name: uniqueName(), description });
      expectStatus(res, 201);
      expect(res.body.workflow.description).toBe(description);
    }
  });

  it('refuses 2,001 characters with 400 naming description', async () => {
    expectValidation(await create({ name: uniqueName(), description: 'd'.repeat(2_001) }), 'description', /at most 2000 characters/);
    expectValidation(await create({ name: uniqueName(), description: '😀'.repeat(2_001) }), 'description');
  });

  it.each([42, true, ['a'], { text: 'a' }])('refuses a description of %j with 400', async (description) => {
    expectValidation(await create({ name: uniqueName(), description }), 'description', /must be a string or null/);
  });
});

describe('POST /api/workflows: unknown fields', () => {
  it.each([
    ['isActive', true],
    ['version', 7],
    ['id', '00000000-0000-4000-8000-000000000001'],
    ['createdAt', '2020-01-01T00:00:00.000Z'],
    ['executionCount', 3],
    ['webhook', { secret: 'mine' }],
    ['workspaceId', '00000000-0000-4000-8000-000000000001'],
    ['trigger_type', 'manual'],
    ['color', 'blue'],
  ])('refuses %s with 400 naming the field, and creates nothing', async (field, value) => {
    const own = await freshApi();
    const res = await own.post('/api/workflows', { name: uniqueName(), [field]: value });
    expectValidation(res, field);
    expect(await listWorkflows(own)).toEqual([]);
  });
});

describe('POST /api/workflows: the request body', () => {
  it('takes a body of exactly 1 MiB', async () => {
    const res = await send(jsonOfSize({ name: uniqueName() }, MiB));
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  });

  it.each([false, true])('refuses 1 MiB + 1 byte with a JSON 413 (chunked: %s), creating nothing', async (chunked) => {
    const own = await createWorkspace(app.orm);
    const res = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: '/api/workflows',
      body: jsonOfSize({ name: uniqueName() }, MiB + 1),
      chunked,
      headers: { authorization: `Bearer ${own.key}`, 'content-type': 'application/json' },
    });
    expectError(res, 413, 'payload_too_large');
    expect(await listWorkflows(client(app.baseUrl, own.key))).toEqual([]);
  });

  it('refuses a 1 MiB + 1 byte workflowJson with 413 before validating it', async () => {
    const res = await send(jsonOfSize({ name: uniqueName(), workflowJson: { nodes: 'x', edges: [] } }, MiB + 1));
    expectError(res, 413, 'payload_too_large');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'refuses a body sent as %s with 415',
    async (contentType) => {
      const res = await send(JSON.stringify({ name: uniqueName() }), { contentType });
      expectError(res, 415, 'unsupported_media_type');
    },
  );

  // Text that is no JSON, and JSON that is no object.
  it.each([
    ['truncated JSON', '{"name": "x"'],
    ['a trailing comma', '{"name": "x",}'],
    ['single quotes', "{'name': 'x'}"],
    ['plain text', 'name=x'],
    ['an array as the body', '[{"name": "x"}]'],
    ['a string as the body', '"x"'],
    ['a number as the body', '42'],
    ['null as the body', 'null'],
  ])('refuses %s with 400 invalid_json', async (_what, body) => {
    expectError(await send(body), 400, 'invalid_json');
  });

  it.each([
    ['an array', [defaultGraph('ticket_created')]],
    ['a string', JSON.stringify(defaultGraph('ticket_created'))],
    ['null', null],
    ['a number', 1],
  ])('refuses a workflowJson that is %s with 400 naming workflowJson', async (_what, workflowJson) => {
    const res = await create({ name: uniqueName(), workflowJson });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.some((d: { path: string }) => d.path.startsWith('workflowJson')), JSON.stringify(res.body)).toBe(true);
  });
});
