import { describe, expect, it } from 'vitest';
import { Approval } from '../../src/approvals/entity.ts';
import { cancelApprovalsOf, requestApproval, settleApproval } from '../../src/approvals/runs.ts';
import { purgeFinishedExecutions } from '../../src/executions/retention.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, createWorkspace, useTestApp, useWorkspace, type Client } from '../helpers/app.ts';
import { createWorkflow, decide, expectStatus } from '../helpers/api.ts';
import { askApproval, type AskOptions, type Asked } from '../helpers/approvals.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, UUID } from '../helpers/expect.ts';
import { approvalNode, refundApproval } from '../helpers/graphs.ts';
import { detailPaths, UNKNOWN_ID } from '../helpers/workflows.ts';

// docs/api.md, "Approvals": what runs ask of people (request_approval), listed and decided by
// API. Without an engine the runs do not start here: each approval is made as a run makes it
// when it reaches the node (src/approvals/runs.ts), so that the routes' rules are tested on
// real rows; the engine tests take the whole way (test/engine/approvals.test.ts).

const app = useTestApp();
const PEOPLE = [{ userId: 'alice' }, { userId: 'bob', role: 'admin' as const }, { userId: 'carol' }];
const { ws, api } = useWorkspace(app, PEOPLE);

const APPROVAL_FIELDS = ['approvers', 'decidedAt', 'decisions', 'draftId', 'dueAt', 'executionId', 'id', 'nodeId', 'question', 'quorum', 'requestedAt', 'source', 'status', 'ticketId', 'workflowId'];

/** A run of this file's workspace (or `workspace`) that reached its `ask` node: the approval it made. */
function ask(opts: AskOptions & { workspace?: { id: string; api: Client } } = {}): Promise<Asked> {
  return askApproval(app.orm, opts.workspace?.api ?? api, opts.workspace?.id ?? ws.workspaceId, opts);
}

async function getApproval(id: string, caller: Client = api): Promise<any> {
  const res = await caller.get(`/api/approvals/${id}`);
  expectStatus(res, 200);
  return res.body.approval;
}

async function listApprovals(query = '', caller: Client = api): Promise<any[]> {
  const res = await caller.get(`/api/approvals${query}`);
  expectStatus(res, 200);
  return res.body.approvals;
}

describe('GET /api/approvals/:id', () => {
  it('answers { approval } with exactly its public fields: pending, the question as the run rendered it, when it is due', async () => {
    const { approvalId, workflowId, executionId, ticketId } = await ask({ timeoutSeconds: 3600 });
    const res = await api.get(`/api/approvals/${approvalId}`);
    expectStatus(res, 200);
    expectJson(res);
    const approval = expectOnly(res.body, 'approval', APPROVAL_FIELDS);
    expect(approval).toMatchObject({ id: approvalId, workflowId, executionId, ticketId, nodeId: 'ask', question: 'Refund 120 EUR?', approvers: ['alice', 'bob'], quorum: 'any', status: 'pending', decisions: [], decidedAt: null });
    expect(approval.requestedAt).toMatch(ISO_UTC);
    expect(Date.parse(approval.dueAt) - Date.parse(approval.requestedAt)).toBeGreaterThanOrEqual(3_599_000);
  });

  it('has no dueAt without a time-out, and no ticket for a run without one', async () => {
    const approval = await getApproval((await ask({ ticket: false })).approvalId);
    expect(approval).toMatchObject({ dueAt: null, ticketId: null });
  });

  it('is 404 for an unknown or malformed id, and for another workspace\'s approval', async () => {
    expectError(await api.get(`/api/approvals/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await api.get('/api/approvals/not-an-id'), 404, 'not_found');
    const other = await createWorkspace(app.orm, PEOPLE);
    const theirs = await ask({ workspace: { id: other.workspaceId, api: client(app.baseUrl, other.key) } });
    expectError(await api.get(`/api/approvals/${theirs.approvalId}`), 404, 'not_found');
    expectError(await decide(api, theirs.approvalId, { userId: 'alice', decision: 'approve' }), 404, 'not_found');
    expect((await listApprovals('?limit=200')).map((a) => a.id)).not.toContain(theirs.approvalId);
  });

  it('needs the API key', async () => {
    expectError(await client(app.baseUrl).get('/api/approvals'), 401, 'unauthorized');
  });
});

describe('GET /api/approvals', () => {
  it('lists newest first, filtered by status and by approver, in pages of `limit` before an approval', async () => {
    const other = await createWorkspace(app.orm, PEOPLE);
    const theirs = { id: other.workspaceId, api: client(app.baseUrl, other.key) };
    const first = await ask({ workspace: theirs, approvers: ['alice'] });
    const second = await ask({ workspace: theirs, approvers: ['bob', 'carol'] });
    const third = await ask({ workspace: theirs, approvers: ['carol', 'alice'] });
    expectStatus(await decide(theirs.api, second.approvalId, { userId: 'bob', decision: 'reject', comment: 'Over budget' }), 200);

    expect((await listApprovals('', theirs.api)).map((a) => a.id)).toEqual([third.approvalId, second.approvalId, first.approvalId]);
    expect((await listApprovals('?status=pending', theirs.api)).map((a) => a.id)).toEqual([third.approvalId, first.approvalId]);
    expect((await listApprovals('?status=rejected', theirs.api)).map((a) => a.id)).toEqual([second.approvalId]);
    expect(await listApprovals('?status=approved', theirs.api)).toEqual([]);
    expect((await listApprovals('?approver=alice', theirs.api)).map((a) => a.id)).toEqual([third.approvalId, first.approvalId]);
    expect((await listApprovals('?approver=carol&status=pending', theirs.api)).map((a) => a.id)).toEqual([third.approvalId]);
    expect(await listApprovals('?approver=dave', theirs.api)).toEqual([]);
    expect((await listApprovals('?limit=2', theirs.api)).map((a) => a.id)).toEqual([third.approvalId, second.approvalId]);
    expect((await listApprovals(`?limit=2&before=${second.approvalId}`, theirs.api)).map((a) => a.id)).toEqual([first.approvalId]);
  });

  it('refuses bad filters with a 400 naming them', async () => {
    expectValidation(await api.get('/api/approvals?status=waiting'), 'status', /status must be one of: pending, approved, rejected, expired, cancelled/);
    expectValidation(await api.get('/api/approvals?limit=0'), 'limit');
    expectValidation(await api.get('/api/approvals?limit=201'), 'limit');
    expectValidation(await api.get(`/api/approvals?before=${UNKNOWN_ID}`), 'before', /an approval of this workspace/);
    expectValidation(await api.get('/api/approvals?approver='), 'approver');
    expectValidation(await api.get('/api/approvals?status=pending&status=approved'), 'status', /given once/);
  });
});

describe('POST /api/approvals/:id/decision', () => {
  it('approves with quorum any: 200 { approval } as it stands, the decision with its comment, approved at once', async () => {
    const { approvalId } = await ask();
    const res = await decide(api, approvalId, { userId: 'bob', decision: 'approve', comment: 'Fine, a loyal customer.' });
    expectStatus(res, 200);
    const approval = expectOnly(res.body, 'approval', APPROVAL_FIELDS);
    expect(approval).toMatchObject({ status: 'approved', decisions: [{ userId: 'bob', decision: 'approve', comment: 'Fine, a loyal customer.' }] });
    expect(approval.decidedAt).toMatch(ISO_UTC);
    expect(approval.decisions[0].at).toBe(approval.decidedAt);
    expect(await getApproval(approvalId)).toEqual(approval);
  });

  it('rejects with quorum any; a comment is optional', async () => {
    const { approvalId } = await ask();
    const res = await decide(api, approvalId, { userId: 'alice', decision: 'reject' });
    expectStatus(res, 200);
    expect(res.body.approval).toMatchObject({ status: 'rejected', decisions: [{ userId: 'alice', decision: 'reject', comment: null }] });
  });

  it('with quorum all waits for every approver: pending after the first yes, approved after the last', async () => {
    const { approvalId } = await ask({ approvers: ['alice', 'bob', 'carol'], quorum: 'all' });
    expect((await decide(api, approvalId, { userId: 'carol', decision: 'approve' })).body.approval).toMatchObject({ status: 'pending', decidedAt: null });
    expect((await decide(api, approvalId, { userId: 'alice', decision: 'approve' })).body.approval).toMatchObject({ status: 'pending' });
    const last = (await decide(api, approvalId, { userId: 'bob', decision: 'approve' })).body.approval;
    expect(last.status).toBe('approved');
    expect(last.decisions.map((d: { userId: string }) => d.userId)).toEqual(['carol', 'alice', 'bob']);
  });

  it('with quorum all, one rejection rejects, whatever came before', async () => {
    const { approvalId } = await ask({ approvers: ['alice', 'bob', 'carol'], quorum: 'all' });
    expectStatus(await decide(api, approvalId, { userId: 'alice', decision: 'approve' }), 200);
    const res = await decide(api, approvalId, { userId: 'carol', decision: 'reject', comment: 'No.' });
    expect(res.body.approval).toMatchObject({ status: 'rejected' });
    expectError(await decide(api, approvalId, { userId: 'bob', decision: 'approve' }), 409, 'approval_not_pending');
  });

  it('is 409 already_decided for a second decision of the same approver, and records nothing', async () => {
    const { approvalId } = await ask({ quorum: 'all' });
    expectStatus(await decide(api, approvalId, { userId: 'alice', decision: 'approve' }), 200);
    const again = await decide(api, approvalId, { userId: 'alice', decision: 'reject' });
    expectError(again, 409, 'already_decided');
    expect(again.body.error.message).toMatch(/"alice" has already decided: approve at /);
    expect((await getApproval(approvalId)).decisions).toHaveLength(1);
  });

  it('is 409 approval_not_pending naming its status once it is approved, rejected, expired or cancelled', async () => {
    const approved = await ask();
    expectStatus(await decide(api, approved.approvalId, { userId: 'alice', decision: 'approve' }), 200);
    const late = await decide(api, approved.approvalId, { userId: 'bob', decision: 'reject' });
    expectError(late, 409, 'approval_not_pending');
    expect(late.body.error.message).toMatch(/no longer pending: it is approved since /);

    const expired = await ask({ timeoutSeconds: 60 });
    expect(await settleApproval(app.orm.em.fork(), { approvalId: expired.approvalId, expire: true })).toEqual({ status: 'expired', decidedBy: [] });
    expect((await decide(api, expired.approvalId, { userId: 'alice', decision: 'approve' })).body.error.message).toMatch(/it is expired/);

    const cancelled = await ask();
    expect(await cancelApprovalsOf(app.orm.em.fork(), cancelled.executionId)).toBe(1);
    const refused = await decide(api, cancelled.approvalId, { userId: 'alice', decision: 'approve' });
    expectError(refused, 409, 'approval_not_pending');
    expect(refused.body.error.message).toMatch(/it is cancelled/);
    expect((await getApproval(cancelled.approvalId)).decisions).toEqual([]);
  });

  it('is 403 for someone who is not among the approvers, even a member', async () => {
    const { approvalId } = await ask({ approvers: ['alice'] });
    const res = await decide(api, approvalId, { userId: 'carol', decision: 'approve' });
    expectError(res, 403, 'forbidden');
    expect(res.body.error.message).toMatch(/"carol" is not among the approvers of this approval \("alice"\)/);
    expectError(await decide(api, approvalId, { userId: 'mallory', decision: 'approve' }), 403, 'forbidden');
    expect((await getApproval(approvalId)).status).toBe('pending');
  });

  it('is 403 for an approver who is no longer a member of the workspace', async () => {
    const people = [{ userId: 'alice' }, { userId: 'bob' }];
    const own = await createWorkspace(app.orm, people);
    const theirs = { id: own.workspaceId, api: client(app.baseUrl, own.key) };
    const { approvalId } = await ask({ workspace: theirs });
    await new WorkspaceService(app.orm.em.fork()).removeMember(own.workspaceId, 'bob');
    const res = await decide(theirs.api, approvalId, { userId: 'bob', decision: 'approve' });
    expectError(res, 403, 'forbidden');
    expect(res.body.error.message).toMatch(/no longer a member or admin/);
    expectStatus(await decide(theirs.api, approvalId, { userId: 'alice', decision: 'approve' }), 200);
  });

  it('checks in order: 404, then the body (400), then who decides (403), then the approval\'s state (409)', async () => {
    expectError(await decide(api, UNKNOWN_ID, { decision: 'maybe' }), 404, 'not_found');
    const { approvalId } = await ask({ approvers: ['alice'] });
    expectStatus(await decide(api, approvalId, { userId: 'alice', decision: 'approve' }), 200);
    expectValidation(await decide(api, approvalId, { userId: 'bob', decision: 'maybe' }), 'decision', /approve, reject/);
    expectError(await decide(api, approvalId, { userId: 'bob', decision: 'reject' }), 403, 'forbidden');
    expectError(await decide(api, approvalId, { userId: 'alice', decision: 'reject' }), 409, 'approval_not_pending');
  });

  it('refuses a bad body with a 400 naming the field, and changes nothing', async () => {
    const { approvalId } = await ask();
    expectValidation(await decide(api, approvalId, { decision: 'approve' }), 'userId', /required/);
    expectValidation(await decide(api, approvalId, { userId: 'alice' }), 'decision');
    expectValidation(await decide(api, approvalId, { userId: ' alice', decision: 'approve' }), 'userId', /whitespace/);
    expectValidation(await decide(api, approvalId, { userId: 'alice', decision: 'approve', comment: 'x'.repeat(2001) }), 'comment', /at most 2000/);
    expectValidation(await decide(api, approvalId, { userId: 'alice', decision: 'approve', comment: 7 }), 'comment');
    expectValidation(await decide(api, approvalId, { userId: 'alice', decision: 'approve', reason: 'extra' }), 'reason', /Unknown field/);
    expectError(await api.post(`/api/approvals/${approvalId}/decision`, 'not json'), 400, 'invalid_json');
    expect(await getApproval(approvalId)).toMatchObject({ status: 'pending', decisions: [] });
  });

  it('honours Idempotency-Key: the same decision sent twice answers the first answer and records one decision', async () => {
    const { approvalId } = await ask({ quorum: 'all' });
    const headers = { 'Idempotency-Key': `decide-${approvalId}` };
    const first = await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'alice', decision: 'approve' }, headers);
    expectStatus(first, 200);
    const again = await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'alice', decision: 'approve' }, headers);
    expectStatus(again, 200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await getApproval(approvalId)).decisions).toHaveLength(1);
    expectError(await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'bob', decision: 'approve' }, headers), 409, 'idempotency_key_reused');
  });

  it('decides once when approvers answer at the same moment: one decision decides, the others are told it is no longer pending', async () => {
    const { approvalId } = await ask({ approvers: ['alice', 'bob', 'carol'] });
    const answers = await Promise.all(['alice', 'bob', 'carol'].map((userId, i) => decide(api, approvalId, { userId, decision: i % 2 ? 'reject' : 'approve' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const approval = await getApproval(approvalId);
    expect(approval.decisions).toHaveLength(1);
    expect(approval.status).toBe(approval.decisions[0].decision === 'approve' ? 'approved' : 'rejected');
  });

  it('marks the run to be woken only by the decision that decides (the relay or the API hands it to the engine)', async () => {
    const { approvalId } = await ask({ quorum: 'all' });
    const row = async () => app.orm.em.fork().findOneOrFail(Approval, { id: approvalId });
    await decide(api, approvalId, { userId: 'alice', decision: 'approve' });
    expect((await row()).signalPending).toBe(false);
    await decide(api, approvalId, { userId: 'bob', decision: 'approve' });
    expect((await row()).signalPending).toBe(true);
  });
});

describe('how long an approval is kept', () => {
  it('as long as its execution: purged with it, and not before', async () => {
    const own = await createWorkspace(app.orm, PEOPLE);
    const theirs = { id: own.workspaceId, api: client(app.baseUrl, own.key) };
    const { approvalId, workflowId, executionId } = await ask({ workspace: theirs });
    expectStatus(await decide(theirs.api, approvalId, { userId: 'alice', decision: 'approve' }), 200);
    // Running (its run holds it) nothing is purged; ended (cancelled here), it goes with the execution.
    expect(await purgeFinishedExecutions(app.orm.em.fork(), 0, 100, [own.workspaceId])).toBe(0);
    expectStatus(await getApprovalAnswer(approvalId, theirs.api), 200);
    expect((await theirs.api.post(`/api/workflows/${workflowId}/executions/${executionId}/cancel`)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await purgeFinishedExecutions(app.orm.em.fork(), 0, 100, [own.workspaceId])).toBe(1);
    expectError(await getApprovalAnswer(approvalId, theirs.api), 404, 'not_found');
  });
});

function getApprovalAnswer(id: string, caller: Client) {
  return caller.get(`/api/approvals/${id}`);
}

describe('GET /api/members', () => {
  it('lists the workspace\'s members and admins, ordered by user id, for the pickers of approvers and deciders', async () => {
    const own = await createWorkspace(app.orm, [{ userId: 'zed' }, { userId: 'amy', role: 'admin' }, { userId: 'Bea' }]);
    const res = await client(app.baseUrl, own.key).get('/api/members');
    expectStatus(res, 200);
    expect(res.body).toEqual({ members: [{ userId: 'Bea', role: 'member' }, { userId: 'amy', role: 'admin' }, { userId: 'zed', role: 'member' }] });
    expect((await listMembers()).map((m) => m.userId)).toEqual(['alice', 'bob', 'carol']);
    expectError(await client(app.baseUrl).get('/api/members'), 401, 'unauthorized');
  });
});

async function listMembers(): Promise<Array<{ userId: string; role: string }>> {
  const res = await api.get('/api/members');
  expectStatus(res, 200);
  return res.body.members;
}

describe('saving a graph that asks for approvals', () => {
  it('is a 400 naming the node and the person when an approver is not a member or admin of the workspace', async () => {
    const res = await api.post('/api/workflows', refundApproval(['alice', 'zoe', 'bob', 'yann']));
    expectError(res, 400, 'validation_failed');
    expect(detailPaths(res)).toEqual(['workflowJson.nodes[1].data.approvers[1]', 'workflowJson.nodes[1].data.approvers[3]']);
    expect(res.body.error.details[0].message).toMatch(/node "ask": approver "zoe" is not a current member or admin of this workspace/);
  });

  it('is checked again when the graph changes and when the workflow is activated', async () => {
    const own = await createWorkspace(app.orm, [{ userId: 'alice' }, { userId: 'bob' }]);
    const theirs = client(app.baseUrl, own.key);
    const workflow = await createWorkflow(theirs, refundApproval(['alice', 'bob']));
    await new WorkspaceService(app.orm.em.fork()).removeMember(own.workspaceId, 'bob');
    expectValidation(await theirs.patch(`/api/workflows/${workflow.id}`, { isActive: true }), 'workflowJson.nodes[1].data.approvers[1]', /"bob" is not a current member/);
    expectStatus(await theirs.patch(`/api/workflows/${workflow.id}`, { name: 'Renamed, still inactive' }), 200);
    const changed = refundApproval(['alice', 'bob']).workflowJson;
    changed.nodes[1] = approvalNode('ask', ['alice', 'bob'], { quorum: 'all' });
    expectValidation(await theirs.patch(`/api/workflows/${workflow.id}`, { workflowJson: changed }), 'workflowJson.nodes[1].data.approvers[1]');
    changed.nodes[1] = approvalNode('ask', ['alice'], { quorum: 'all' });
    expectStatus(await theirs.patch(`/api/workflows/${workflow.id}`, { workflowJson: changed, isActive: true }), 200);
  });

  it('a run of it counts a time-out with a calendar in open time: due when that much open time has passed', async () => {
    const calendar = (await api.post('/api/calendars', { name: 'Mondays 9-10', timeZone: 'Europe/Berlin', hours: [{ day: 'mon', from: '09:00', to: '10:00' }] })).body.calendar;
    const { executionId, workflowId, ticketId } = await ask();
    const asked = await requestApproval(
      app.orm.em.fork(),
      // Saturday 2026-11-28 12:00 Berlin: 30 minutes of open time end on Monday at 09:30 Berlin, 08:30 UTC.
      { executionId, workspaceId: ws.workspaceId, workflowId, ticketId, nodeId: 'ask-in-open-time', question: 'Q?', approvers: ['alice'], quorum: 'any', timeoutSeconds: 1800, calendarId: calendar.id, startedAt: '2026-11-28T11:00:00.000Z' },
      [],
    );
    expect(asked).toMatchObject({ dueAt: '2026-11-30T08:30:00.000Z', calendarName: 'Mondays 9-10' });
    expect((await getApproval(asked.approvalId)).dueAt).toBe('2026-11-30T08:30:00.000Z');
  });

  it('a run of it records the approval in the workspace, one per run and node (a retried ask answers the same approval)', async () => {
    const first = await ask();
    const workflow = await getApproval(first.approvalId);
    const again = await requestApproval(
      app.orm.em.fork(),
      { executionId: first.executionId, workspaceId: ws.workspaceId, workflowId: first.workflowId, ticketId: first.ticketId, nodeId: 'ask', question: 'Other?', approvers: ['carol'], quorum: 'all', startedAt: new Date().toISOString() },
      [],
    );
    expect(again.approvalId).toBe(first.approvalId);
    expect(await getApproval(first.approvalId)).toEqual(workflow);
    expect(workflow.id).toMatch(UUID);
  });
});
