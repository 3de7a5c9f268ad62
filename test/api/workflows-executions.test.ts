// POST /api/workflows/:id/trigger, GET /api/workflows/:id/executions and the cancel endpoint,
// without a workflow engine: executions whose path reaches an action stay `pending` here until
// cancelled (one that reaches none is complete at once: it needs no engine).
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectErrorShape, expectJson, expectOnly, expectValidation, ISO_UTC, keysOf, UUID } from '../helpers/expect.ts';
import { EXECUTION_FIELDS, UNKNOWN_ID } from '../helpers/workflows.ts';
import { createTicket, createWorkflow, expectStatus, getWorkflow, listExecutions, listWorkflows, patchWorkflow, triggerWorkflow } from '../helpers/api.ts';
import { runnable, simpleGraph } from '../helpers/graphs.ts';

const app = useTestApp();
const { api } = useWorkspace(app);
const { api: other } = useWorkspace(app);
let ticketId: string;
let otherTicketId: string;
beforeAll(async () => {
  ticketId = (await createTicket(api)).id;
  otherTicketId = (await createTicket(other)).id;
});

const trigger = (workflowId: string, body?: unknown) => api.post(`/api/workflows/${workflowId}/trigger`, body);
const cancel = (workflowId: string, executionId: string) => api.post(`/api/workflows/${workflowId}/executions/${executionId}/cancel`);

describe('POST /api/workflows/:id/trigger', () => {
  it('answers 202 { execution } with exactly the ten execution fields', async () => {
    const workflow = await createWorkflow(api, runnable());
    const res = await trigger(workflow.id, {});
    expectStatus(res, 202);
    expectJson(res);
    expectOnly(res.body, 'execution', EXECUTION_FIELDS);
    const execution = res.body.execution;
    expect(execution.id).toMatch(UUID);
    expect(execution).toMatchObject({
      workflowId: workflow.id,
      workflowVersion: 1,
      triggeredBy: 'manual',
      ticketId: null,
      completedAt: null,
      error: null,
    });
    expect(['pending', 'running']).toContain(execution.status);
    expect(execution.startedAt).toMatch(ISO_UTC);
    expect(Array.isArray(execution.steps)).toBe(true);
  });

  it('stays pending without an engine, with no steps yet', async () => {
    const workflow = await createWorkflow(api, runnable());
    const execution = await triggerWorkflow(api, workflow.id);
    expect(execution).toMatchObject({ status: 'pending', steps: [] });
  });

  it('runs an inactive workflow (a test run) and leaves it inactive', async () => {
    const workflow = await createWorkflow(api, runnable());
    expect(workflow.isActive).toBe(false);
    await triggerWorkflow(api, workflow.id);
    expect((await getWorkflow(api, workflow.id)).isActive).toBe(false);
  });

  it('runs an active workflow too', async () => {
    const workflow = await createWorkflow(api, runnable());
    await patchWorkflow(api, workflow.id, { isActive: true });
    expect((await triggerWorkflow(api, workflow.id)).triggeredBy).toBe('manual');
  });

  it.each(['ticket_created', 'scheduled', 'webhook', 'manual'])('is triggeredBy manual whatever the trigger type (%s)', async (triggerType) => {
    const workflow = await createWorkflow(api, runnable(triggerType));
    expect((await triggerWorkflow(api, workflow.id)).triggeredBy).toBe('manual');
  });

  it('accepts a request without a body, with or without a JSON content type (the body is optional)', async () => {
    const workflow = await createWorkflow(api, runnable());
    const res = await trigger(workflow.id);
    expectStatus(res, 202);
    expect(res.body.execution.ticketId).toBeNull();
    expectStatus(await api.post(`/api/workflows/${workflow.id}/trigger`, '', { 'content-type': 'application/json' }), 202);
  });

  it('records the current version of the workflow', async () => {
    const workflow = await createWorkflow(api, runnable());
    await patchWorkflow(api, workflow.id, { workflowJson: simpleGraph() });
    await patchWorkflow(api, workflow.id, { triggerType: 'manual' });
    expect((await triggerWorkflow(api, workflow.id)).workflowVersion).toBe(3);
  });

  it("runs on a ticket of the key's workspace and records its id", async () => {
    const workflow = await createWorkflow(api, runnable());
    const execution = await triggerWorkflow(api, workflow.id, { ticketId });
    expect(execution.ticketId).toBe(ticketId);
    expect((await listExecutions(api, workflow.id))[0].ticketId).toBe(ticketId);
  });

  it('takes data as an object, with a ticket or without', async () => {
    const workflow = await createWorkflow(api, runnable());
    expectStatus(await trigger(workflow.id, { data: { orderId: 42, nested: { list: [1, 'two', null] } } }), 202);
    expectStatus(await trigger(workflow.id, { ticketId, data: {} }), 202);
  });

  it.each([
    ["another workspace's ticket", () => otherTicketId],
    ['an unknown ticket', () => UNKNOWN_ID],
    ['a malformed ticket id', () => 'not-a-ticket'],
    ['an empty ticket id', () => ''],
  ])('answers 404 to %s and starts nothing', async (_what, id) => {
    const workflow = await createWorkflow(api, runnable());
    expectError(await trigger(workflow.id, { ticketId: id() }), 404, 'not_found');
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it.each([42, null, true, ['a'], { id: 'x' }])('refuses a ticketId of %j with 400', async (value) => {
    const workflow = await createWorkflow(api, runnable());
    expectValidation(await trigger(workflow.id, { ticketId: value }), 'ticketId');
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'payload'],
    ['null', null],
    ['a number', 7],
    ['a boolean', true],
  ])('refuses data that is %s with 400 naming data, starting nothing', async (_what, data) => {
    const workflow = await createWorkflow(api, runnable());
    expectValidation(await trigger(workflow.id, { data }), 'data');
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it.each([
    ['triggeredBy', 'webhook'],
    ['workflowVersion', 1],
    ['status', 'completed'],
    ['ticket', { id: 'x' }],
    ['payload', {}],
  ])('refuses the unknown field %s with 400 naming it', async (field, value) => {
    const workflow = await createWorkflow(api, runnable());
    expectValidation(await trigger(workflow.id, { [field]: value }), field);
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413, starting nothing', async () => {
    const workflow = await createWorkflow(api, runnable());
    const json = JSON.stringify({ data: { note: 'big' } });
    const body = `${json.slice(0, -1)}${' '.repeat(1024 * 1024 + 1 - Buffer.byteLength(json))}}`;
    expectError(await trigger(workflow.id, body), 413, 'payload_too_large');
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it('refuses a body that is not a JSON object with 400 invalid_json, and text with 415', async () => {
    const workflow = await createWorkflow(api, runnable());
    expectError(await trigger(workflow.id, '[]'), 400, 'invalid_json');
    expectError(await trigger(workflow.id, '{"data":'), 400, 'invalid_json');
    expectError(await api.post(`/api/workflows/${workflow.id}/trigger`, '{}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it.each([
    ['an unknown workflow', () => UNKNOWN_ID],
    ['a malformed workflow id', () => 'nope'],
  ])('answers 404 to %s', async (_what, id) => {
    expectError(await trigger(id(), {}), 404, 'not_found');
  });

  it('answers 404 for an unknown workflow before looking at the body', async () => {
    expectError(await trigger(UNKNOWN_ID, { data: 'not an object', bogus: 1 }), 404, 'not_found');
  });

  it("answers 404 to another workspace's workflow and starts nothing there", async () => {
    const theirs = await createWorkflow(other, runnable());
    expectError(await trigger(theirs.id, {}), 404, 'not_found');
    expectError(await trigger(theirs.id, { ticketId: otherTicketId }), 404, 'not_found');
    expect(await listExecutions(other, theirs.id)).toEqual([]);
  });
});

describe('GET /api/workflows/:id/executions', () => {
  it('answers { executions: [] } before any run', async () => {
    const workflow = await createWorkflow(api, runnable());
    const res = await api.get(`/api/workflows/${workflow.id}/executions`);
    expectStatus(res, 200);
    expectJson(res);
    expect(res.body).toEqual({ executions: [] });
  });

  it('lists the executions of this workflow only, newest first, each exactly as the trigger answered it', async () => {
    const workflow = await createWorkflow(api, runnable());
    const neighbour = await createWorkflow(api, runnable());
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await triggerWorkflow(api, workflow.id, i === 1 ? { ticketId } : {}));
    await triggerWorkflow(api, neighbour.id);
    const res = await api.get(`/api/workflows/${workflow.id}/executions`);
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['executions']);
    for (const e of res.body.executions) expect(keysOf(e)).toEqual(EXECUTION_FIELDS);
    expect(res.body.executions).toEqual([...runs].reverse());
  });

  it("answers 404 for another workspace's workflow", async () => {
    const theirs = await createWorkflow(other, runnable());
    await triggerWorkflow(other, theirs.id);
    expectError(await api.get(`/api/workflows/${theirs.id}/executions`), 404, 'not_found');
  });

  it.each([
    ['an unknown workflow', UNKNOWN_ID],
    ['a malformed workflow id', 'nope'],
  ])('answers 404 for %s, even with invalid query parameters', async (_what, id) => {
    expectError(await api.get(`/api/workflows/${id}/executions`), 404, 'not_found');
    expectError(await api.get(`/api/workflows/${id}/executions?limit=0&status=done`), 404, 'not_found');
  });

  describe('limit', () => {
    let workflowId: string;
    let newestFirst: string[];
    beforeAll(async () => {
      workflowId = (await createWorkflow(api, runnable())).id;
      const ids: string[] = [];
      for (let i = 0; i < 55; i++) ids.push((await triggerWorkflow(api, workflowId)).id);
      newestFirst = ids.reverse();
    });

    it('defaults to 50, the newest', async () => {
      expect((await listExecutions(api, workflowId)).map((e) => e.id)).toEqual(newestFirst.slice(0, 50));
    });

    it.each([1, 2, 50, 55, 200])('limit=%i returns at most that many, newest first', async (limit) => {
      expect((await listExecutions(api, workflowId, `?limit=${limit}`)).map((e) => e.id)).toEqual(newestFirst.slice(0, limit));
    });

    it.each(['0', '201', 'x', '-1', '1.5', '', '1e2', ' 5'])('refuses limit=%j with 400 naming limit', async (limit) => {
      expectValidation(await api.get(`/api/workflows/${workflowId}/executions?limit=${encodeURIComponent(limit)}`), 'limit');
    });

    it('refuses limit given twice with 400', async () => {
      expectValidation(await api.get(`/api/workflows/${workflowId}/executions?limit=1&limit=2`), 'limit');
    });
  });

  describe('status', () => {
    let workflowId: string;
    let cancelledId: string;
    let pendingIds: string[];
    beforeAll(async () => {
      workflowId = (await createWorkflow(api, runnable())).id;
      const a = await triggerWorkflow(api, workflowId);
      const b = await triggerWorkflow(api, workflowId);
      const c = await triggerWorkflow(api, workflowId);
      expectStatus(await cancel(workflowId, b.id), 202);
      cancelledId = b.id;
      pendingIds = [c.id, a.id];
    });

    it('status=cancelled lists only cancelled executions', async () => {
      const listed = await listExecutions(api, workflowId, '?status=cancelled');
      expect(listed.map((e) => e.id)).toEqual([cancelledId]);
      expect(listed[0].status).toBe('cancelled');
    });

    it('status=pending lists only pending executions, newest first', async () => {
      expect((await listExecutions(api, workflowId, '?status=pending')).map((e) => e.id)).toEqual(pendingIds);
    });

    it.each(['running', 'completed', 'failed'])('status=%s lists none here', async (status) => {
      expect(await listExecutions(api, workflowId, `?status=${status}`)).toEqual([]);
    });

    it('combines with limit', async () => {
      expect((await listExecutions(api, workflowId, '?status=pending&limit=1')).map((e) => e.id)).toEqual([pendingIds[0]]);
    });

    it.each(['done', 'PENDING', '', 'queued'])('refuses status=%j with 400 naming status', async (status) => {
      expectValidation(await api.get(`/api/workflows/${workflowId}/executions?status=${encodeURIComponent(status)}`), 'status');
    });
  });

  describe('before', () => {
    /** Pages back through a workflow's executions with `limit`, following `before` = the last id of each page. */
    async function pageThrough(workflowId: string, limit: number, extra = ''): Promise<string[][]> {
      const pages: string[][] = [];
      let before = '';
      for (let guard = 0; guard < 50; guard++) {
        const page = await listExecutions(api, workflowId, `?limit=${limit}${extra}${before ? `&before=${before}` : ''}`);
        if (page.length === 0) break;
        pages.push(page.map((e) => e.id));
        before = page[page.length - 1].id;
      }
      return pages;
    }

    it('pages back through executions one window at a time: each exactly once, in order', async () => {
      const workflow = await createWorkflow(api, runnable());
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await triggerWorkflow(api, workflow.id)).id);
      const pages = await pageThrough(workflow.id, 2);
      expect(pages).toEqual([
        [ids[4], ids[3]],
        [ids[2], ids[1]],
        [ids[0]],
      ]);
    });

    it('pages through 7 executions created at once without duplicates or gaps, even when they share a start time', async () => {
      const workflow = await createWorkflow(api, runnable());
      const created = await Promise.all(Array.from({ length: 7 }, () => triggerWorkflow(api, workflow.id)));
      const all = (await listExecutions(api, workflow.id)).map((e) => e.id);
      expect(all.sort()).toEqual(created.map((e) => e.id).sort());

      const check = async () => {
        const full = (await listExecutions(api, workflow.id)).map((e) => e.id);
        const pages = await pageThrough(workflow.id, 2);
        expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
        // Paging yields the same sequence as the full list: nothing twice, nothing missed.
        expect(pages.flat()).toEqual(full);
        expect(new Set(pages.flat()).size).toBe(7);
      };
      await check();

      // Now make every one of them start in the same millisecond, as concurrent triggers can.
      await app.orm.em
        .fork()
        .execute('update executions set started_at = (select min(started_at) from executions where workflow_id = ?) where workflow_id = ?', [
          workflow.id,
          workflow.id,
        ]);
      const listed = await listExecutions(api, workflow.id);
      expect(new Set(listed.map((e) => e.startedAt)).size).toBe(1);
      await check();
    });

    it('answers an empty page after the oldest execution', async () => {
      const workflow = await createWorkflow(api, runnable());
      const only = await triggerWorkflow(api, workflow.id);
      expect(await listExecutions(api, workflow.id, `?before=${only.id}`)).toEqual([]);
    });

    it('combines with status', async () => {
      const workflow = await createWorkflow(api, runnable());
      const a = await triggerWorkflow(api, workflow.id);
      const b = await triggerWorkflow(api, workflow.id);
      const c = await triggerWorkflow(api, workflow.id);
      expectStatus(await cancel(workflow.id, b.id), 202);
      expect((await listExecutions(api, workflow.id, `?status=pending&before=${c.id}`)).map((e) => e.id)).toEqual([a.id]);
    });

    it("refuses another workflow's execution id with 400 naming before", async () => {
      const workflow = await createWorkflow(api, runnable());
      await triggerWorkflow(api, workflow.id);
      const neighbour = await createWorkflow(api, runnable());
      const foreign = await triggerWorkflow(api, neighbour.id);
      expectValidation(await api.get(`/api/workflows/${workflow.id}/executions?before=${foreign.id}`), 'before');
    });

    it("refuses another workspace's execution id with 400", async () => {
      const workflow = await createWorkflow(api, runnable());
      const theirs = await createWorkflow(other, runnable());
      const foreign = await triggerWorkflow(other, theirs.id);
      expectValidation(await api.get(`/api/workflows/${workflow.id}/executions?before=${foreign.id}`), 'before');
    });

    it.each(['nope', UNKNOWN_ID, '', '2025-01-01T00:00:00Z'])('refuses before=%j with 400 naming before', async (before) => {
      const workflow = await createWorkflow(api, runnable());
      await triggerWorkflow(api, workflow.id);
      expectValidation(await api.get(`/api/workflows/${workflow.id}/executions?before=${encodeURIComponent(before)}`), 'before');
    });
  });
});

describe('POST /api/workflows/:id/executions/:executionId/cancel', () => {
  it('cancels a pending execution: 202 { execution } with status cancelled and completedAt set', async () => {
    const workflow = await createWorkflow(api, runnable());
    const execution = await triggerWorkflow(api, workflow.id, { ticketId });
    const res = await cancel(workflow.id, execution.id);
    expectStatus(res, 202);
    expectOnly(res.body, 'execution', EXECUTION_FIELDS);
    expect(res.body.execution).toMatchObject({
      id: execution.id,
      workflowId: workflow.id,
      workflowVersion: 1,
      status: 'cancelled',
      triggeredBy: 'manual',
      ticketId,
      startedAt: execution.startedAt,
    });
    expect(res.body.execution.completedAt).toMatch(ISO_UTC);
    expect(Date.parse(res.body.execution.completedAt)).toBeGreaterThanOrEqual(Date.parse(execution.startedAt));
    const [listed] = await listExecutions(api, workflow.id);
    expect(listed).toEqual(res.body.execution);
  });

  it('answers 409 to a second cancel, leaving the execution as it was', async () => {
    const workflow = await createWorkflow(api, runnable());
    const execution = await triggerWorkflow(api, workflow.id);
    const first = await cancel(workflow.id, execution.id);
    expectStatus(first, 202);
    const again = await cancel(workflow.id, execution.id);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expectErrorShape(again.body);
    expect((await listExecutions(api, workflow.id))[0]).toEqual(first.body.execution);
  });

  it('cancels only the execution named', async () => {
    const workflow = await createWorkflow(api, runnable());
    const a = await triggerWorkflow(api, workflow.id);
    const b = await triggerWorkflow(api, workflow.id);
    expectStatus(await cancel(workflow.id, a.id), 202);
    const listed = await listExecutions(api, workflow.id);
    expect(listed.map((e) => [e.id, e.status])).toEqual([
      [b.id, 'pending'],
      [a.id, 'cancelled'],
    ]);
  });

  it.each([
    ['an unknown execution', () => UNKNOWN_ID],
    ['a malformed execution id', () => 'nope'],
  ])('answers 404 to %s', async (_what, id) => {
    const workflow = await createWorkflow(api, runnable());
    expectError(await cancel(workflow.id, id()), 404, 'not_found');
  });

  it("answers 404 to an execution of another workflow, and leaves it pending", async () => {
    const workflow = await createWorkflow(api, runnable());
    const neighbour = await createWorkflow(api, runnable());
    const foreign = await triggerWorkflow(api, neighbour.id);
    expectError(await cancel(workflow.id, foreign.id), 404, 'not_found');
    expect((await listExecutions(api, neighbour.id))[0].status).toBe('pending');
  });

  it("answers 404 to another workspace's workflow and execution, and leaves it pending", async () => {
    const theirs = await createWorkflow(other, runnable());
    const foreign = await triggerWorkflow(other, theirs.id);
    expectError(await cancel(theirs.id, foreign.id), 404, 'not_found');
    expect((await listExecutions(other, theirs.id))[0].status).toBe('pending');
  });

  it('answers 404 for an unknown workflow', async () => {
    expectError(await cancel(UNKNOWN_ID, UNKNOWN_ID), 404, 'not_found');
  });

  it('counts the cancelled run in the list of workflows', async () => {
    const own = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    const workflow = await createWorkflow(own, runnable());
    const execution = await triggerWorkflow(own, workflow.id);
    expectStatus(await own.post(`/api/workflows/${workflow.id}/executions/${execution.id}/cancel`), 202);
    expect((await listWorkflows(own))[0]).toMatchObject({ executionCount: 1, lastTriggeredAt: execution.startedAt });
  });
});
