// GET /api/workflows/:id and GET /api/workflows (docs/contract.md §1, §4, §8 for the webhook block).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, keysOf } from '../helpers/expect.ts';
import { TRIGGER_TYPES, UNKNOWN_ID, WEBHOOK_WORKFLOW_FIELDS, WORKFLOW_FIELDS, WORKFLOW_LIST_ITEM_FIELDS } from '../helpers/workflows.ts';
import { createTicket, createWorkflow, expectStatus, getWorkflow, listWorkflows, patchWorkflow, triggerWorkflow } from '../helpers/api.ts';
import { runnable, simpleGraph } from '../helpers/graphs.ts';

const app = useTestApp();
const { api } = useWorkspace(app);
const { api: other } = useWorkspace(app);

/** A workspace of its own, for tests that look at the whole list. */
async function freshApi(): Promise<Client> {
  return (await newWorkspace(app)).api;
}

describe('GET /api/workflows/:id', () => {
  it('answers 200 { workflow } with exactly the nine fields of the full configuration', async () => {
    const graph = simpleGraph('ticket_updated');
    const created = await createWorkflow(api, { name: 'Escalations', description: 'On updates', triggerType: 'ticket_updated', workflowJson: graph });
    const res = await api.get(`/api/workflows/${created.id}`);
    expectStatus(res, 200);
    expectJson(res);
    expectOnly(res.body, 'workflow', WORKFLOW_FIELDS);
    expect(res.body.workflow).toEqual({
      id: created.id,
      name: 'Escalations',
      description: 'On updates',
      triggerType: 'ticket_updated',
      isActive: false,
      version: 1,
      workflowJson: graph,
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    expect(res.body.workflow.updatedAt).toMatch(ISO_UTC);
  });

  it('shows a webhook workflow with webhook { path, secret } and no other extra field', async () => {
    const created = await createWorkflow(api, { triggerType: 'webhook' });
    const workflow = await getWorkflow(api, created.id);
    expect(keysOf(workflow)).toEqual(WEBHOOK_WORKFLOW_FIELDS);
    expect(keysOf(workflow.webhook)).toEqual(['path', 'secret']);
    expect(workflow.webhook.path).toBe(`/api/workflows/${created.id}/webhook`);
    expect(workflow.webhook.secret).toBeTypeOf('string');
    expect(workflow.webhook.secret.length).toBeGreaterThanOrEqual(16);
  });

  it('keeps the webhook secret from one read to the next and gives each webhook workflow its own', async () => {
    const a = await createWorkflow(api, { triggerType: 'webhook' });
    const b = await createWorkflow(api, { triggerType: 'webhook' });
    const first = (await getWorkflow(api, a.id)).webhook.secret;
    expect((await getWorkflow(api, a.id)).webhook.secret).toBe(first);
    expect((await getWorkflow(api, b.id)).webhook.secret).not.toBe(first);
  });

  it.each(TRIGGER_TYPES.filter((t) => t !== 'webhook'))('shows no webhook block on a %s workflow', async (triggerType) => {
    const created = await createWorkflow(api, { triggerType });
    const workflow = await getWorkflow(api, created.id);
    expect(keysOf(workflow)).toEqual(WORKFLOW_FIELDS);
    expect(workflow).not.toHaveProperty('webhook');
  });

  it.each([
    ['an unknown id', UNKNOWN_ID],
    ['a malformed id', 'not-a-uuid'],
    ['a number', '12345'],
    ['an id with SQL in it', "1' or '1'='1"],
    ['an upper-case unknown id', UNKNOWN_ID.toUpperCase()],
  ])('answers 404 to %s', async (_what, id) => {
    expectError(await api.get(`/api/workflows/${encodeURIComponent(id)}`), 404, 'not_found');
  });

  it("answers 404 to another workspace's workflow, exactly as to an unknown id", async () => {
    const theirs = await createWorkflow(other);
    const res = await api.get(`/api/workflows/${theirs.id}`);
    expectError(res, 404, 'not_found');
    expect(res.body).toEqual((await api.get(`/api/workflows/${UNKNOWN_ID}`)).body);
    expectStatus(await other.get(`/api/workflows/${theirs.id}`), 200);
  });
});

describe('GET /api/workflows', () => {
  it('answers { workflows: [] } for a workspace without workflows', async () => {
    const own = await freshApi();
    const res = await own.get('/api/workflows');
    expectStatus(res, 200);
    expectJson(res);
    expect(res.body).toEqual({ workflows: [] });
  });

  it('lists items with exactly id, name, description, isActive, triggerType, version, executionCount, lastTriggeredAt, createdAt, updatedAt', async () => {
    const own = await freshApi();
    const created = await createWorkflow(own, { name: 'Listed', description: 'in the list', triggerType: 'manual' });
    const res = await own.get('/api/workflows');
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['workflows']);
    expect(res.body.workflows).toHaveLength(1);
    expect(keysOf(res.body.workflows[0])).toEqual(WORKFLOW_LIST_ITEM_FIELDS);
    expect(res.body.workflows[0]).toEqual({
      id: created.id,
      name: 'Listed',
      description: 'in the list',
      isActive: false,
      triggerType: 'manual',
      version: 1,
      executionCount: 0,
      lastTriggeredAt: null,
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
  });

  it('shows neither the graph nor a webhook secret in list items', async () => {
    const own = await freshApi();
    await createWorkflow(own, { triggerType: 'webhook' });
    const [item] = await listWorkflows(own);
    expect(keysOf(item)).toEqual(WORKFLOW_LIST_ITEM_FIELDS);
    expect(JSON.stringify(item)).not.toMatch(/whsec|secret/i);
  });

  it('lists newest first', async () => {
    const own = await freshApi();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createWorkflow(own)).id);
    expect((await listWorkflows(own)).map((w) => w.id)).toEqual([...ids].reverse());
  });

  it('keeps creation order, not update order', async () => {
    const own = await freshApi();
    const first = await createWorkflow(own);
    const second = await createWorkflow(own);
    await patchWorkflow(own, first.id, { name: 'renamed after the second was created' });
    expect((await listWorkflows(own)).map((w) => w.id)).toEqual([second.id, first.id]);
  });

  it('shows the current name, activity and version of each workflow', async () => {
    const own = await freshApi();
    const created = await createWorkflow(own);
    const updated = await patchWorkflow(own, created.id, { name: 'New name', isActive: true, workflowJson: simpleGraph() });
    const [item] = await listWorkflows(own);
    expect(item).toMatchObject({ name: 'New name', isActive: true, version: 2, updatedAt: updated.updatedAt });
  });

  it("lists only the key's workspace's workflows", async () => {
    const mine = await freshApi();
    const theirs = await freshApi();
    const a = await createWorkflow(mine);
    const b = await createWorkflow(theirs);
    expect((await listWorkflows(mine)).map((w) => w.id)).toEqual([a.id]);
    expect((await listWorkflows(theirs)).map((w) => w.id)).toEqual([b.id]);
  });

  describe('active filter', () => {
    let own: Client;
    let active: any;
    let inactive: any;
    beforeAll(async () => {
      own = await freshApi();
      active = await createWorkflow(own);
      inactive = await createWorkflow(own);
      await patchWorkflow(own, active.id, { isActive: true });
    });

    it('active=true lists only active workflows', async () => {
      expect((await listWorkflows(own, '?active=true')).map((w) => w.id)).toEqual([active.id]);
    });

    it('active=false lists only inactive workflows', async () => {
      expect((await listWorkflows(own, '?active=false')).map((w) => w.id)).toEqual([inactive.id]);
    });

    it('without active lists both', async () => {
      expect((await listWorkflows(own)).map((w) => w.id).sort()).toEqual([active.id, inactive.id].sort());
    });

    it.each(['yes', 'no', '1', '0', 'TRUE', 'True', '', 'true,false'])('refuses active=%s with 400 naming active', async (value) => {
      expectValidation(await own.get(`/api/workflows?active=${encodeURIComponent(value)}`), 'active');
    });

    it('refuses active given twice with 400', async () => {
      expectValidation(await own.get('/api/workflows?active=true&active=false'), 'active');
    });
  });

  describe('trigger_type filter', () => {
    let own: Client;
    const byType: Record<string, string> = {};
    beforeAll(async () => {
      own = await freshApi();
      for (const triggerType of TRIGGER_TYPES) byType[triggerType] = (await createWorkflow(own, { triggerType })).id;
    });

    it.each(TRIGGER_TYPES)('trigger_type=%s lists only workflows of that trigger type', async (triggerType) => {
      const listed = await listWorkflows(own, `?trigger_type=${triggerType}`);
      expect(listed.map((w) => w.id)).toEqual([byType[triggerType]]);
      expect(listed[0].triggerType).toBe(triggerType);
    });

    it('combines with active', async () => {
      await patchWorkflow(own, byType.manual, { isActive: true });
      expect((await listWorkflows(own, '?trigger_type=manual&active=true')).map((w) => w.id)).toEqual([byType.manual]);
      expect(await listWorkflows(own, '?trigger_type=manual&active=false')).toEqual([]);
      expect((await listWorkflows(own, '?trigger_type=ticket_created&active=false')).map((w) => w.id)).toEqual([byType.ticket_created]);
    });

    it('follows a change of trigger type', async () => {
      const moved = await createWorkflow(own, { triggerType: 'tag_added' });
      await patchWorkflow(own, moved.id, { triggerType: 'ticket_closed' });
      expect((await listWorkflows(own, '?trigger_type=tag_added')).map((w) => w.id)).not.toContain(moved.id);
      expect((await listWorkflows(own, '?trigger_type=ticket_closed')).map((w) => w.id)).toContain(moved.id);
    });

    it.each(['ticket_deleted', 'MANUAL', '', 'manual,webhook'])('refuses trigger_type=%s with 400 naming trigger_type', async (value) => {
      expectValidation(await own.get(`/api/workflows?trigger_type=${encodeURIComponent(value)}`), 'trigger_type');
    });
  });

  describe('executionCount and lastTriggeredAt', () => {
    it('count manual triggers and show the start of the latest', async () => {
      const own = await freshApi();
      const busy = await createWorkflow(own);
      const idle = await createWorkflow(own);
      await triggerWorkflow(own, busy.id);
      await triggerWorkflow(own, busy.id, { data: { n: 2 } });
      const last = await triggerWorkflow(own, busy.id);
      const listed = await listWorkflows(own);
      const busyItem = listed.find((w) => w.id === busy.id);
      const idleItem = listed.find((w) => w.id === idle.id);
      expect(busyItem).toMatchObject({ executionCount: 3, lastTriggeredAt: last.startedAt });
      expect(busyItem.lastTriggeredAt).toMatch(ISO_UTC);
      expect(idleItem).toMatchObject({ executionCount: 0, lastTriggeredAt: null });
    });

    it('count a run on a ticket and a cancelled run like any other', async () => {
      const own = await freshApi();
      const ticket = await createTicket(own);
      const workflow = await createWorkflow(own, runnable('manual'));
      const first = await triggerWorkflow(own, workflow.id, { ticketId: ticket.id });
      expectStatus(await own.post(`/api/workflows/${workflow.id}/executions/${first.id}/cancel`), 202);
      const second = await triggerWorkflow(own, workflow.id);
      const [item] = await listWorkflows(own);
      expect(item).toMatchObject({ executionCount: 2, lastTriggeredAt: second.startedAt });
    });

    it('do not change the version, activity or updatedAt of the workflow', async () => {
      const own = await freshApi();
      const workflow = await createWorkflow(own);
      await triggerWorkflow(own, workflow.id);
      const [item] = await listWorkflows(own);
      expect(item).toMatchObject({ version: 1, isActive: false, updatedAt: workflow.createdAt });
    });
  });
});
