// GET /api/v1/tickets/:id/executions (docs/contract.md §4): every automation run on a ticket,
// of every workflow, newest first, in the shape and pages of a workflow's executions.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, keysOf } from '../helpers/expect.ts';
import { EXECUTION_FIELDS, UNKNOWN_ID } from '../helpers/workflows.ts';
import { createTicket, createWorkflow, expectStatus, triggerWorkflow } from '../helpers/api.ts';
import { runnable } from '../helpers/graphs.ts';

const app = useTestApp();
const { api } = useWorkspace(app);
const { api: other } = useWorkspace(app);

const list = (ticketId: string, query = '') => api.get(`/api/v1/tickets/${ticketId}/executions${query}`);
const ids = (res: { body: { executions: { id: string }[] } }) => res.body.executions.map((e) => e.id);

let ticketId: string;
let runs: Array<{ id: string; workflowId: string }> = [];
beforeAll(async () => {
  ticketId = (await createTicket(api)).id;
  const first = await createWorkflow(api, runnable('manual'));
  const second = await createWorkflow(api, runnable('manual'));
  const elsewhere = (await createTicket(api)).id;
  await triggerWorkflow(api, first.id, { ticketId: elsewhere });
  // A run without a ticket (its action needs none) is on no ticket's list.
  const ticketless = await createWorkflow(api, {
    triggerType: 'manual',
    workflowJson: { nodes: [{ id: 'start', type: 'trigger', data: { triggerType: 'manual' } }, { id: 'pause', type: 'action', data: { actionType: 'delay', seconds: 60 } }], edges: [{ source: 'start', target: 'pause' }] },
  });
  await triggerWorkflow(api, ticketless.id, {});
  // Five runs on the ticket, alternating between the two workflows: the newest last.
  for (let i = 0; i < 5; i++) runs.push(await triggerWorkflow(api, (i % 2 === 0 ? first : second).id, { ticketId }));
  runs = runs.reverse();
});

describe('GET /api/v1/tickets/:id/executions', () => {
  it('answers { executions } of every workflow on the ticket, newest first, in the shape of a workflow\'s list', async () => {
    const res = await list(ticketId);
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['executions']);
    expect(ids(res)).toEqual(runs.map((r) => r.id));
    expect(new Set(res.body.executions.map((e: { workflowId: string }) => e.workflowId)).size).toBe(2);
    for (const e of res.body.executions) {
      expect(keysOf(e)).toEqual(EXECUTION_FIELDS);
      expect(e.ticketId).toBe(ticketId);
      const same = await api.get(`/api/workflows/${e.workflowId}/executions/${e.id}`);
      expect(same.body.execution).toEqual(e);
    }
  });

  it('pages with limit and before, and filters by status', async () => {
    const page1 = await list(ticketId, '?limit=2');
    expect(ids(page1)).toEqual(runs.slice(0, 2).map((r) => r.id));
    const page2 = await list(ticketId, `?limit=2&before=${runs[1].id}`);
    expect(ids(page2)).toEqual(runs.slice(2, 4).map((r) => r.id));
    const last = await list(ticketId, `?limit=2&before=${runs[3].id}`);
    expect(ids(last)).toEqual([runs[4].id]);
    expect(ids(await list(ticketId, '?status=completed'))).toEqual([]);
    expect(ids(await list(ticketId, '?status=pending'))).toEqual(runs.map((r) => r.id));
  });

  it('is 400 for a bad limit, status or before (an execution of another ticket included)', async () => {
    expectValidation(await list(ticketId, '?limit=0'), 'limit');
    expectValidation(await list(ticketId, '?limit=201'), 'limit');
    expectValidation(await list(ticketId, '?status=done'), 'status');
    expectValidation(await list(ticketId, '?before=nope'), 'before');
    const elsewhere = (await createTicket(api)).id;
    const { id: workflowId } = await createWorkflow(api, runnable('manual'));
    const foreign = await triggerWorkflow(api, workflowId, { ticketId: elsewhere });
    expectValidation(await list(ticketId, `?before=${foreign.id}`), 'before');
  });

  it('answers an empty list for a ticket without runs', async () => {
    const quiet = (await createTicket(api)).id;
    expect((await list(quiet)).body).toEqual({ executions: [] });
  });

  it('leaves out the runs of a deleted workflow', async () => {
    const t = (await createTicket(api)).id;
    const kept = await createWorkflow(api, runnable('manual'));
    const gone = await createWorkflow(api, runnable('manual'));
    const keptRun = await triggerWorkflow(api, kept.id, { ticketId: t });
    await triggerWorkflow(api, gone.id, { ticketId: t });
    expectStatus(await api.delete(`/api/workflows/${gone.id}`), 204);
    expect(ids(await list(t))).toEqual([keptRun.id]);
  });

  it('is 404 for a ticket of another workspace, an unknown or a malformed id', async () => {
    const theirs = (await createTicket(other)).id;
    expectError(await list(theirs), 404, 'not_found');
    expectError(await list(UNKNOWN_ID), 404, 'not_found');
    expectError(await list('not-a-uuid'), 404, 'not_found');
    expectError(await other.get(`/api/v1/tickets/${ticketId}/executions`), 404, 'not_found');
  });
});
