// PATCH /api/workflows/:id (docs/contract.md §1, §4) and DELETE /api/workflows/:id.
import { describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, keysOf, sleep } from '../helpers/expect.ts';
import { UNKNOWN_ID, WEBHOOK_WORKFLOW_FIELDS, WORKFLOW_FIELDS } from '../helpers/workflows.ts';
import { actionNode, defaultGraph, edge, graphWith, simpleGraph, triggerNode } from '../helpers/graphs.ts';
import { createWorkflow, expectStatus, getWorkflow, listExecutions, listWorkflows, patchWorkflow, triggerWorkflow, uniqueName } from '../helpers/api.ts';

const app = useTestApp();
const { api } = useWorkspace(app);
const { api: other } = useWorkspace(app);

const patch = (id: string, body: unknown) => api.patch(`/api/workflows/${id}`, body);

describe('PATCH /api/workflows/:id: the response', () => {
  it('answers 200 { workflow } in the shape of GET, equal to what GET then shows', async () => {
    const created = await createWorkflow(api);
    const res = await patch(created.id, { name: 'Renamed' });
    expectStatus(res, 200);
    expectJson(res);
    expectOnly(res.body, 'workflow', WORKFLOW_FIELDS);
    expect(res.body.workflow).toEqual(await getWorkflow(api, created.id));
  });

  it('answers a webhook workflow with its webhook block, as GET does', async () => {
    const created = await createWorkflow(api, { triggerType: 'webhook' });
    const res = await patch(created.id, { description: 'still a webhook' });
    expectStatus(res, 200);
    expect(keysOf(res.body.workflow)).toEqual(WEBHOOK_WORKFLOW_FIELDS);
    expect(res.body.workflow).toEqual(await getWorkflow(api, created.id));
  });
});

describe('PATCH /api/workflows/:id: version', () => {
  it.each([
    ['name', { name: 'A new name' }],
    ['description', { description: 'A new description' }],
    ['description to null', { description: null }],
    ['isActive true', { isActive: true }],
    ['isActive false', { isActive: false }],
    ['name, description and isActive together', { name: 'All three', description: 'changed', isActive: true }],
  ])('keeps the version when changing %s, and applies the change', async (_what, body) => {
    const created = await createWorkflow(api, { description: 'original' });
    const updated = await patchWorkflow(api, created.id, body);
    expect(updated.version).toBe(1);
    expect(updated).toMatchObject(body);
    const read = await getWorkflow(api, created.id);
    expect(read).toMatchObject({ ...body, version: 1, workflowJson: defaultGraph('ticket_created') });
  });

  it('goes up by one on each change of workflowJson, which GET then shows', async () => {
    const created = await createWorkflow(api);
    const v2 = await patchWorkflow(api, created.id, { workflowJson: simpleGraph('ticket_created', 'first') });
    expect(v2.version).toBe(2);
    expect(v2.workflowJson).toEqual(simpleGraph('ticket_created', 'first'));
    const v3 = await patchWorkflow(api, created.id, { workflowJson: simpleGraph('ticket_created', 'second') });
    expect(v3.version).toBe(3);
    expect(await getWorkflow(api, created.id)).toMatchObject({ version: 3, workflowJson: simpleGraph('ticket_created', 'second') });
  });

  it('goes up by one, once, when workflowJson changes together with name and isActive', async () => {
    const created = await createWorkflow(api);
    const updated = await patchWorkflow(api, created.id, { name: 'Both', isActive: true, workflowJson: simpleGraph() });
    expect(updated).toMatchObject({ name: 'Both', isActive: true, version: 2 });
  });

  it('keeps the version when the same workflowJson is sent again', async () => {
    const graph = simpleGraph();
    const created = await createWorkflow(api, { workflowJson: graph });
    const updated = await patchWorkflow(api, created.id, { workflowJson: graph });
    expect(updated.version).toBe(1);
    expect(updated.workflowJson).toEqual(graph);
  });

  it('keeps the version when the default graph is sent back unchanged', async () => {
    const created = await createWorkflow(api, { triggerType: 'manual' });
    const updated = await patchWorkflow(api, created.id, { workflowJson: defaultGraph('manual') });
    expect(updated.version).toBe(1);
  });

  it('keeps the version when the graph read by GET is sent back as it was read', async () => {
    const created = await createWorkflow(api, { workflowJson: simpleGraph() });
    const read = await getWorkflow(api, created.id);
    const updated = await patchWorkflow(api, created.id, { workflowJson: read.workflowJson });
    expect(updated.version).toBe(1);
  });

  it('keeps the version when the same triggerType is sent', async () => {
    const created = await createWorkflow(api, { triggerType: 'tag_added' });
    expect((await patchWorkflow(api, created.id, { triggerType: 'tag_added' })).version).toBe(1);
  });
});

describe('PATCH /api/workflows/:id: triggerType', () => {
  it('goes up by one and retypes the trigger node, keeping the rest of the graph', async () => {
    const graph = simpleGraph('ticket_created');
    const created = await createWorkflow(api, { workflowJson: graph });
    const updated = await patchWorkflow(api, created.id, { triggerType: 'ticket_updated' });
    expect(updated).toMatchObject({ triggerType: 'ticket_updated', version: 2 });
    const expected = { ...graph, nodes: [triggerNode('ticket_updated'), ...(graph.nodes as unknown[]).slice(1)] };
    expect(updated.workflowJson).toEqual(expected);
    expect(await getWorkflow(api, created.id)).toMatchObject({ triggerType: 'ticket_updated', version: 2, workflowJson: expected });
  });

  it('retypes a trigger node that is not called "trigger"', async () => {
    const graph = { nodes: [triggerNode('ticket_created', 'entry'), actionNode('tag-it')], edges: [edge('entry', 'tag-it')] };
    const created = await createWorkflow(api, { workflowJson: graph });
    const updated = await patchWorkflow(api, created.id, { triggerType: 'message_received' });
    expect(updated.workflowJson.nodes[0]).toEqual(triggerNode('message_received', 'entry'));
  });

  it('retypes a scheduled trigger to an event trigger, dropping the schedule it no longer has a use for', async () => {
    const scheduled = triggerNode('scheduled', 'trigger', { cron: '0 9 * * 1-5', timezone: 'Europe/Paris', ticketFilter: { status: ['pending'] }, label: 'Weekdays' });
    const created = await createWorkflow(api, {
      triggerType: 'scheduled',
      workflowJson: { nodes: [scheduled, actionNode('tag-it')], edges: [edge('trigger', 'tag-it')] },
    });
    const res = await patch(created.id, { triggerType: 'manual' });
    expectStatus(res, 200);
    expect(res.body.workflow).toMatchObject({ triggerType: 'manual', version: 2 });
    expect(res.body.workflow.workflowJson.nodes[0]).toEqual(triggerNode('manual', 'trigger', { label: 'Weekdays' }));
    expect(res.body.workflow.workflowJson.nodes[1]).toEqual(actionNode('tag-it'));
  });

  it('takes triggerType and a matching workflowJson together as one new version', async () => {
    const created = await createWorkflow(api);
    const updated = await patchWorkflow(api, created.id, { triggerType: 'manual', workflowJson: simpleGraph('manual') });
    expect(updated).toMatchObject({ triggerType: 'manual', version: 2, workflowJson: simpleGraph('manual') });
  });

  it('gives a workflow turned into a webhook workflow its webhook block, and takes it away again', async () => {
    const created = await createWorkflow(api);
    const asWebhook = await patchWorkflow(api, created.id, { triggerType: 'webhook' });
    expect(asWebhook.webhook).toEqual({ path: `/api/workflows/${created.id}/webhook`, secret: expect.any(String) });
    expect((await getWorkflow(api, created.id)).webhook).toEqual(asWebhook.webhook);
    const back = await patchWorkflow(api, created.id, { triggerType: 'ticket_created' });
    expect(keysOf(back)).toEqual(WORKFLOW_FIELDS);
    expect(keysOf(await getWorkflow(api, created.id))).toEqual(WORKFLOW_FIELDS);
  });

  it.each(['ticket_deleted', '', null, 3])('refuses triggerType %j with 400 and changes nothing', async (triggerType) => {
    const created = await createWorkflow(api);
    expectValidation(await patch(created.id, { triggerType }), 'triggerType');
    expect(await getWorkflow(api, created.id)).toMatchObject({ triggerType: 'ticket_created', version: 1 });
  });
});

describe('PATCH /api/workflows/:id: refused bodies', () => {
  it('refuses {} with 400', async () => {
    const created = await createWorkflow(api);
    expectError(await patch(created.id, {}), 400, 'validation_failed');
  });

  it('refuses a request without a body with 400', async () => {
    const created = await createWorkflow(api);
    expectError(await api.patch(`/api/workflows/${created.id}`), 400, 'validation_failed');
  });

  it.each([
    ['version', 9],
    ['id', UNKNOWN_ID],
    ['createdAt', '2020-01-01T00:00:00.000Z'],
    ['updatedAt', '2020-01-01T00:00:00.000Z'],
    ['executionCount', 0],
    ['webhook', { secret: 'mine' }],
    ['active', true],
    ['graph', { nodes: [], edges: [] }],
  ])('refuses the unknown field %s with 400 naming it, changing nothing', async (field, value) => {
    const created = await createWorkflow(api);
    const res = await patch(created.id, { name: 'Should not stick', [field]: value });
    expectValidation(res, field);
    expect(await getWorkflow(api, created.id)).toMatchObject({ name: created.name, version: 1, updatedAt: created.createdAt });
  });

  it.each(['true', 'false', 1, 0, null, [], {}])('refuses isActive %j: it must be a boolean', async (isActive) => {
    const created = await createWorkflow(api);
    expectValidation(await patch(created.id, { isActive }), 'isActive');
    expect((await getWorkflow(api, created.id)).isActive).toBe(false);
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name of 201 characters', { name: '😀'.repeat(201) }],
    ['a null name', { name: null }],
  ])('refuses %s with 400 naming name', async (_what, body) => {
    const created = await createWorkflow(api);
    expectValidation(await patch(created.id, body), 'name');
    expect((await getWorkflow(api, created.id)).name).toBe(created.name);
  });

  it('accepts a name of 200 emoji', async () => {
    const created = await createWorkflow(api);
    expect((await patchWorkflow(api, created.id, { name: '😀'.repeat(200) })).name).toBe('😀'.repeat(200));
  });

  it('refuses a description of 2,001 characters and accepts 2,000', async () => {
    const created = await createWorkflow(api);
    expectValidation(await patch(created.id, { description: 'd'.repeat(2_001) }), 'description');
    expect((await patchWorkflow(api, created.id, { description: 'd'.repeat(2_000) })).description).toBe('d'.repeat(2_000));
  });

  it('refuses an invalid graph with 400 and changes nothing at all: not the graph, version, name, activity or updatedAt', async () => {
    const graph = simpleGraph();
    const created = await createWorkflow(api, { workflowJson: graph });
    const before = await getWorkflow(api, created.id);
    const broken = { nodes: [triggerNode(), actionNode('tag-it'), actionNode('island')], edges: [edge('trigger', 'tag-it')] };
    const res = await patch(created.id, { name: 'Should not stick', isActive: true, workflowJson: broken });
    expectError(res, 400, 'validation_failed');
    expect(await getWorkflow(api, created.id)).toEqual(before);
    expect(before).toMatchObject({ version: 1, workflowJson: graph, isActive: false });
  });

  it('refuses a triggerType that the current graph cannot take without changing anything', async () => {
    // The given graph's trigger says ticket_created; the new triggerType says manual.
    const created = await createWorkflow(api, { workflowJson: simpleGraph() });
    const before = await getWorkflow(api, created.id);
    const res = await patch(created.id, { triggerType: 'manual', workflowJson: simpleGraph('ticket_created') });
    expectError(res, 400, 'validation_failed');
    expect(await getWorkflow(api, created.id)).toEqual(before);
  });

  it.each([
    ['an array', [defaultGraph('ticket_created')]],
    ['a string', '{"nodes":[],"edges":[]}'],
    ['null', null],
  ])('refuses workflowJson that is %s with 400', async (_what, workflowJson) => {
    const created = await createWorkflow(api);
    const res = await patch(created.id, { workflowJson });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.some((d: { path: string }) => d.path.startsWith('workflowJson'))).toBe(true);
  });

  it('refuses a body over 1 MiB with 413, changing nothing', async () => {
    const created = await createWorkflow(api);
    const json = JSON.stringify({ name: 'Too big' });
    const body = `${json.slice(0, -1)}${' '.repeat(1024 * 1024 + 1 - Buffer.byteLength(json))}}`;
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1);
    expectError(await api.patch(`/api/workflows/${created.id}`, body, { 'content-type': 'application/json' }), 413, 'payload_too_large');
    expect((await getWorkflow(api, created.id)).name).toBe(created.name);
  });

  it('refuses a body that is not JSON with 400 invalid_json, and one sent as text with 415', async () => {
    const created = await createWorkflow(api);
    expectError(await api.patch(`/api/workflows/${created.id}`, '{"name": ', { 'content-type': 'application/json' }), 400, 'invalid_json');
    expectError(await api.patch(`/api/workflows/${created.id}`, '{"name":"x"}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });
});

describe('PATCH /api/workflows/:id: which workflow', () => {
  it.each([
    ['an unknown id', UNKNOWN_ID],
    ['a malformed id', 'not-a-uuid'],
  ])('answers 404 to %s', async (_what, id) => {
    expectError(await patch(id, { name: 'x' }), 404, 'not_found');
  });

  it('answers 404 to an unknown id even when the body is also invalid', async () => {
    expectError(await patch(UNKNOWN_ID, {}), 404, 'not_found');
    expectError(await patch(UNKNOWN_ID, { bogus: true }), 404, 'not_found');
  });

  it("answers 404 to another workspace's workflow and leaves it unchanged", async () => {
    const theirs = await createWorkflow(other, { workflowJson: simpleGraph() });
    const before = await getWorkflow(other, theirs.id);
    expectError(await patch(theirs.id, { name: 'hijacked', isActive: true }), 404, 'not_found');
    expectError(await patch(theirs.id, { workflowJson: simpleGraph('ticket_created', 'mine') }), 404, 'not_found');
    expect(await getWorkflow(other, theirs.id)).toEqual(before);
  });
});

describe('PATCH /api/workflows/:id: updatedAt', () => {
  it.each([
    ['name', { name: 'Later name' }],
    ['isActive', { isActive: true }],
    ['workflowJson', { workflowJson: simpleGraph() }],
  ])('moves updatedAt forward on a change of %s, keeping createdAt', async (_what, body) => {
    const created = await createWorkflow(api);
    await sleep(5);
    const updated = await patchWorkflow(api, created.id, body);
    expect(updated.createdAt).toBe(created.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.createdAt));
    expect((await getWorkflow(api, created.id)).updatedAt).toBe(updated.updatedAt);
  });

  it('answers isActive as set, and lets it be switched back', async () => {
    const created = await createWorkflow(api);
    expect((await patchWorkflow(api, created.id, { isActive: true })).isActive).toBe(true);
    expect((await getWorkflow(api, created.id)).isActive).toBe(true);
    expect((await patchWorkflow(api, created.id, { isActive: false })).isActive).toBe(false);
    expect((await getWorkflow(api, created.id)).isActive).toBe(false);
  });
});

describe('DELETE /api/workflows/:id', () => {
  it('answers 204 with an empty body', async () => {
    const created = await createWorkflow(api);
    const res = await api.delete(`/api/workflows/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
  });

  it('makes the workflow gone from every endpoint and from the list', async () => {
    const own = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    const doomed = await createWorkflow(own, { workflowJson: simpleGraph() });
    const kept = await createWorkflow(own);
    const run = await triggerWorkflow(own, doomed.id);
    expect((await own.delete(`/api/workflows/${doomed.id}`)).status).toBe(204);

    expectError(await own.get(`/api/workflows/${doomed.id}`), 404, 'not_found');
    expectError(await own.patch(`/api/workflows/${doomed.id}`, { name: 'back from the dead' }), 404, 'not_found');
    expectError(await own.get(`/api/workflows/${doomed.id}/executions`), 404, 'not_found');
    expectError(await own.post(`/api/workflows/${doomed.id}/trigger`, {}), 404, 'not_found');
    expectError(await own.delete(`/api/workflows/${doomed.id}`), 404, 'not_found');
    expectError(await own.post(`/api/workflows/${doomed.id}/executions/${run.id}/cancel`), 404, 'not_found');
    expect((await listWorkflows(own)).map((w) => w.id)).toEqual([kept.id]);
    expect((await listWorkflows(own, '?active=false')).map((w) => w.id)).toEqual([kept.id]);
  });

  it('removes an active workflow as well', async () => {
    const created = await createWorkflow(api);
    await patchWorkflow(api, created.id, { isActive: true });
    expect((await api.delete(`/api/workflows/${created.id}`)).status).toBe(204);
    expectError(await api.get(`/api/workflows/${created.id}`), 404, 'not_found');
    expect((await listWorkflows(api, '?active=true')).map((w) => w.id)).not.toContain(created.id);
  });

  it('leaves the other workflows of the workspace and their executions alone', async () => {
    const doomed = await createWorkflow(api);
    const kept = await createWorkflow(api);
    const run = await triggerWorkflow(api, kept.id);
    expect((await api.delete(`/api/workflows/${doomed.id}`)).status).toBe(204);
    expect((await getWorkflow(api, kept.id)).id).toBe(kept.id);
    expect((await listExecutions(api, kept.id)).map((e) => e.id)).toEqual([run.id]);
  });

  it.each([
    ['an unknown id', UNKNOWN_ID],
    ['a malformed id', 'not-a-uuid'],
  ])('answers 404 to %s', async (_what, id) => {
    expectError(await api.delete(`/api/workflows/${id}`), 404, 'not_found');
  });

  it("answers 404 to another workspace's workflow, which survives", async () => {
    const theirs = await createWorkflow(other);
    expectError(await api.delete(`/api/workflows/${theirs.id}`), 404, 'not_found');
    expect(await getWorkflow(other, theirs.id)).toMatchObject({ id: theirs.id, name: theirs.name });
    expect((await listWorkflows(other)).map((w) => w.id)).toContain(theirs.id);
  });

  it('lets a new workflow be created with the name of a deleted one', async () => {
    const name = uniqueName();
    const first = await createWorkflow(api, { name });
    expect((await api.delete(`/api/workflows/${first.id}`)).status).toBe(204);
    const second = await createWorkflow(api, { name });
    expect(second.id).not.toBe(first.id);
    expect(second.version).toBe(1);
  });
});

describe('PATCH then trigger: the execution records the version', () => {
  it('runs the version current when it was triggered', async () => {
    const created = await createWorkflow(api, { triggerType: 'manual' });
    const first = await triggerWorkflow(api, created.id);
    await patchWorkflow(api, created.id, { workflowJson: graphWith(actionNode('pause', { actionType: 'delay', seconds: 60 }), 'manual') });
    const second = await triggerWorkflow(api, created.id);
    expect(first.workflowVersion).toBe(1);
    expect(second.workflowVersion).toBe(2);
    const listed = await listExecutions(api, created.id);
    expect(listed.map((e) => [e.id, e.workflowVersion])).toEqual([
      [second.id, 2],
      [first.id, 1],
    ]);
  });
});
