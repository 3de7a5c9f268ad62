// ETag on GET /api/workflows/:id and If-Match on PATCH (docs/contract.md §4, "Concurrent edits"):
// two people editing one workflow cannot overwrite each other without noticing.
import { describe, expect, it } from 'vitest';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation } from '../helpers/expect.ts';
import { createWorkflow, expectStatus, getWorkflow } from '../helpers/api.ts';
import { simpleGraph } from '../helpers/graphs.ts';

const app = useTestApp();
const { api } = useWorkspace(app);

const etagOf = async (id: string) => {
  const res = await api.get(`/api/workflows/${id}`);
  expectStatus(res, 200);
  const etag = res.headers.get('etag');
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
  return etag!;
};
const patch = (id: string, body: unknown, ifMatch?: string) => api.patch(`/api/workflows/${id}`, body, ifMatch === undefined ? {} : { 'if-match': ifMatch });

describe('ETag of GET /api/workflows/:id', () => {
  it('stays the same while the workflow does not change', async () => {
    const { id } = await createWorkflow(api);
    expect(await etagOf(id)).toBe(await etagOf(id));
  });

  it.each([
    ['the name', { name: 'Another name' }],
    ['the description', { description: 'Another description' }],
    ['the activity', { isActive: true }],
    ['the graph', { workflowJson: simpleGraph('ticket_created', 'other-tag') }],
    ['the trigger type', { triggerType: 'manual' }],
  ])('changes when %s changes, and PATCH answers the new one', async (_what, body) => {
    const { id } = await createWorkflow(api, { workflowJson: simpleGraph() });
    const before = await etagOf(id);
    const res = await patch(id, body);
    expectStatus(res, 200);
    const after = await etagOf(id);
    expect(after).not.toBe(before);
    expect(res.headers.get('etag')).toBe(after);
  });
});

describe('If-Match on PATCH /api/workflows/:id', () => {
  it('applies the change when it names the current state, and answers the new ETag', async () => {
    const { id } = await createWorkflow(api, { workflowJson: simpleGraph() });
    const res = await patch(id, { workflowJson: simpleGraph('ticket_created', 'mine') }, await etagOf(id));
    expectStatus(res, 200);
    expect(res.body.workflow.version).toBe(2);
    expect(res.headers.get('etag')).toBe(await etagOf(id));
  });

  it('refuses a stale one with 412, naming the current version and ETag, and changes nothing', async () => {
    const { id } = await createWorkflow(api, { workflowJson: simpleGraph() });
    const mine = await etagOf(id);
    // Someone else saves first.
    expectStatus(await patch(id, { workflowJson: simpleGraph('ticket_created', 'theirs') }, mine), 200);
    const theirs = await getWorkflow(api, id);
    const current = await etagOf(id);

    const res = await patch(id, { name: 'Mine', workflowJson: simpleGraph('ticket_created', 'mine') }, mine);
    expectError(res, 412, 'precondition_failed');
    expect(res.body.error.message).toContain('version 2');
    expect(res.body.error.details).toEqual([{ path: 'If-Match', message: expect.stringContaining(current) }]);
    expect(res.headers.get('etag')).toBe(current);
    expect(await getWorkflow(api, id)).toEqual(theirs);
    expect(await etagOf(id)).toBe(current);
  });

  it('says the version as it is when a rename, not a new version, made the ETag stale', async () => {
    const { id } = await createWorkflow(api, { workflowJson: simpleGraph() });
    const mine = await etagOf(id);
    expectStatus(await patch(id, { name: 'Renamed by someone else' }, mine), 200);
    expect((await getWorkflow(api, id)).version).toBe(1);

    const res = await patch(id, { description: 'Mine' }, mine);
    expectError(res, 412, 'precondition_failed');
    expect(res.body.error.message).not.toMatch(/now at version/);
    expect(res.body.error.message).toBe(
      'If-Match does not name the workflow as it is now: it was changed since you read it (its graph is at version 1; ' +
        'a new name, description or activity changes the ETag but not the version), or the ETag is of another workflow. ' +
        'Read it again (GET) and reapply your change, or send If-Match with its current ETag to overwrite it.',
    );
  });

  it('takes a list of tags, one of which must be current; weak tags never match', async () => {
    const { id } = await createWorkflow(api);
    const current = await etagOf(id);
    expectError(await patch(id, { name: 'Weak' }, `W/${current}`), 412, 'precondition_failed');
    expectStatus(await patch(id, { name: 'Listed' }, `"stale-one", ${current}`), 200);
  });

  it('takes * as any current state', async () => {
    const { id } = await createWorkflow(api);
    expectStatus(await patch(id, { name: 'Anything' }, '*'), 200);
  });

  it('is a 400 naming If-Match when it is not a list of entity tags, and changes nothing', async () => {
    const { id } = await createWorkflow(api);
    const before = await getWorkflow(api, id);
    for (const bad of ['unquoted', '"open', '"a", b', ',']) {
      const res = await patch(id, { name: 'Bad header' }, bad);
      expectValidation(res, 'If-Match');
    }
    expect(await getWorkflow(api, id)).toEqual(before);
  });

  it('reports a broken body before a stale ETag (400, then 412), and an unknown workflow first (404)', async () => {
    const { id } = await createWorkflow(api);
    const stale = '"not-the-current-one"';
    expectValidation(await patch(id, { name: '' }, stale), 'name');
    expectValidation(await patch(id, { workflowJson: { nodes: [], edges: [] } }, stale), 'workflowJson.nodes');
    expectError(await patch(id, { name: 'Fine' }, stale), 412, 'precondition_failed');
    expectError(await patch('00000000-0000-4000-8000-000000000000', { name: 'Fine' }, stale), 404, 'not_found');
  });

  it('of two saves sent at once with the same ETag, exactly one applies', async () => {
    const { id } = await createWorkflow(api, { workflowJson: simpleGraph() });
    const etag = await etagOf(id);
    const answers = await Promise.all(['a', 'b', 'c'].map((tag) => patch(id, { workflowJson: simpleGraph('ticket_created', tag) }, etag)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    expect((await getWorkflow(api, id)).version).toBe(2);
  });

  it('is not needed: a PATCH without it applies whatever the state, as before', async () => {
    const { id } = await createWorkflow(api);
    await patch(id, { name: 'First' });
    expectStatus(await patch(id, { name: 'Second' }), 200);
    expect((await getWorkflow(api, id)).name).toBe('Second');
  });
});
