import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../cli/run-cli.ts';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import { Approval } from '../../src/approvals/entity.ts';
import { client, startTestApp, type Client } from '../helpers/app.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { activateWorkflow, approvalAsked, decide, expectStatus, finishedExecutions, getTicket, openTicket, stepOf, triggerWorkflow, type ExecutionView } from '../helpers/api.ts';
import { actionNode, paths, refundApproval } from '../helpers/graphs.ts';
import { eventually } from '../helpers/poll.ts';

// docs/automations.md, "request_approval: a person's yes or no", on the real engine: a run asks,
// people answer by API, and the run goes on down the branch they chose, within a second; or
// down its time-out's; through worker restarts and while Temporal cannot be reached.

const app = useEngineApp();
const PEOPLE = [{ userId: 'dana' }, { userId: 'lee' }, { userId: 'kim', role: 'admin' as const }];

type Run = { api: Client; key: string; workspaceId: string; workflowId: string; ticketId: string; executionId: string };

/** A refund workflow of a fresh workspace, run by hand on a new ticket. */
async function refundRun(approvers: string[], extra: Record<string, unknown> = {}): Promise<Run> {
  const { ws, api } = await engineWorkspace(app, PEOPLE);
  const workflowId = await activateWorkflow(api, refundApproval(approvers, extra));
  const ticketId = await openTicket(api);
  const execution = await triggerWorkflow(api, workflowId, { ticketId, data: { amount: 250 } });
  return { api, key: ws.key, workspaceId: ws.workspaceId, workflowId, ticketId, executionId: execution.id };
}

/** The run's execution once finished, and the ticket's tags then. */
async function outcome(run: Run, timeoutMs = 20_000): Promise<{ execution: ExecutionView; tags: string[] }> {
  const [execution] = await finishedExecutions(run.api, run.workflowId, 1, timeoutMs);
  return { execution, tags: (await getTicket(run.api, run.ticketId)).tags };
}

describe('a run that asks for approval', () => {
  it('waits with its approval pending, then goes down true within a second of the approving decision', async () => {
    const run = await refundRun(['dana', 'lee']);
    const asked = await approvalAsked(run.api, run.workflowId, 'ask');
    expect(asked).toMatchObject({ status: 'pending', approvers: ['dana', 'lee'], quorum: 'any', executionId: run.executionId, ticketId: run.ticketId, question: 'Refund 250 EUR on "Printer is on fire"?' });
    const waiting = (await run.api.get(`/api/workflows/${run.workflowId}/executions/${run.executionId}`)).body.execution;
    expect(stepOf(waiting, 'ask')).toMatchObject({ status: 'waiting', result: { approvalId: asked.id }, completedAt: null });

    const res = await decide(run.api, asked.id, { userId: 'lee', decision: 'approve', comment: 'Loyal customer.' });
    expectStatus(res, 200);
    const { execution, tags } = await outcome(run);
    expect(execution.status).toBe('completed');
    expect(tags).toEqual(['refund-approved']);
    const step = stepOf(execution, 'ask')!;
    expect(step).toMatchObject({ status: 'completed', result: { approvalId: asked.id, decision: 'approved', decidedBy: ['lee'] } });
    expect(stepOf(execution, 'refused')).toBeUndefined();
    // The run went on within a second of the decision: its step completed then.
    expect(Date.parse(step.completedAt!) - Date.parse(res.body.approval.decidedAt)).toBeLessThan(1000);
  });

  it('goes down false when rejected, saying who rejected', async () => {
    const run = await refundRun(['dana', 'lee']);
    const asked = await approvalAsked(run.api, run.workflowId, 'ask');
    expectStatus(await decide(run.api, asked.id, { userId: 'dana', decision: 'reject', comment: 'Over the limit.' }), 200);
    const { execution, tags } = await outcome(run);
    expect(tags).toEqual(['refund-refused']);
    expect(stepOf(execution, 'ask')?.result).toEqual({ approvalId: asked.id, decision: 'rejected', decidedBy: ['dana'] });
  });

  it('with quorum all goes on only once everyone approved, and one rejection rejects', async () => {
    const all = await refundRun(['dana', 'lee', 'kim'], { quorum: 'all' });
    const asked = await approvalAsked(all.api, all.workflowId, 'ask');
    expectStatus(await decide(all.api, asked.id, { userId: 'kim', decision: 'approve' }), 200);
    expectStatus(await decide(all.api, asked.id, { userId: 'dana', decision: 'approve' }), 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await all.api.get(`/api/workflows/${all.workflowId}/executions/${all.executionId}`)).body.execution.status).toBe('running');
    expectStatus(await decide(all.api, asked.id, { userId: 'lee', decision: 'approve' }), 200);
    const approved = await outcome(all);
    expect(approved.tags).toEqual(['refund-approved']);
    expect(stepOf(approved.execution, 'ask')?.result).toEqual({ approvalId: asked.id, decision: 'approved', decidedBy: ['kim', 'dana', 'lee'] });

    const vetoed = await refundRun(['dana', 'lee', 'kim'], { quorum: 'all' });
    const second = await approvalAsked(vetoed.api, vetoed.workflowId, 'ask');
    expectStatus(await decide(vetoed.api, second.id, { userId: 'dana', decision: 'approve' }), 200);
    expectStatus(await decide(vetoed.api, second.id, { userId: 'kim', decision: 'reject' }), 200);
    const rejected = await outcome(vetoed);
    expect(rejected.tags).toEqual(['refund-refused']);
    expect(stepOf(rejected.execution, 'ask')?.result).toMatchObject({ decision: 'rejected', decidedBy: ['kim'] });
  });

  it('expires at its time-out and goes down false, or down true with onTimeout approve', async () => {
    for (const [onTimeout, tag] of [['reject', 'refund-refused'], ['approve', 'refund-approved']] as const) {
      const run = await refundRun(['dana'], { timeoutSeconds: 2, onTimeout });
      const asked = await approvalAsked(run.api, run.workflowId, 'ask');
      const { execution, tags } = await outcome(run);
      const step = stepOf(execution, 'ask')!;
      expect(Date.parse(asked.dueAt) - Date.parse(step.startedAt)).toBe(2000);
      expect((step as { until?: string }).until).toBe(asked.dueAt);
      expect(tags, onTimeout).toEqual([tag]);
      expect(stepOf(execution, 'ask')?.result).toEqual({ approvalId: asked.id, decision: 'expired', decidedBy: [] });
      const expired = (await run.api.get(`/api/approvals/${asked.id}`)).body.approval;
      expect(expired).toMatchObject({ status: 'expired', decisions: [] });
      await expect(decide(run.api, asked.id, { userId: 'dana', decision: 'approve' })).resolves.toMatchObject({ status: 409, body: { error: { code: 'approval_not_pending' } } });
    }
  });

  it('cancelling the run cancels its pending approval', async () => {
    const run = await refundRun(['dana', 'lee'], { timeoutSeconds: 3600 });
    const asked = await approvalAsked(run.api, run.workflowId, 'ask');
    expectStatus(await run.api.post(`/api/workflows/${run.workflowId}/executions/${run.executionId}/cancel`), 202);
    const { execution, tags } = await outcome(run);
    expect(execution.status).toBe('cancelled');
    expect(stepOf(execution, 'ask')).toMatchObject({ status: 'cancelled', result: { approvalId: asked.id }, error: 'Not waited out: the execution was cancelled.' });
    expect(tags).toEqual([]);
    const cancelled = (await run.api.get(`/api/approvals/${asked.id}`)).body.approval;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.decidedAt).not.toBeNull();
    const late = await decide(run.api, asked.id, { userId: 'dana', decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/it is cancelled/);
  });

  it('a run that fails on another branch while its approval waits cancels the approval', async () => {
    const { ws, api } = await engineWorkspace(app, PEOPLE);
    const workflowId = await activateWorkflow(api, {
      ...refundApproval(['dana']),
      workflowJson: {
        nodes: [...refundApproval(['dana']).workflowJson.nodes, actionNode('beat', { actionType: 'delay', seconds: 0.5 }), actionNode('assign', { actionType: 'assign_ticket', assignTo: 'nobody-here' })],
        edges: paths('start > ask >true approved, ask >false refused, start > beat > assign'),
      },
    });
    const ticketId = await openTicket(api);
    await triggerWorkflow(api, workflowId, { ticketId, data: { amount: 1 } });
    const { execution } = await outcome({ api, key: ws.key, workspaceId: ws.workspaceId, workflowId, ticketId, executionId: '' });
    expect(execution.status).toBe('failed');
    expect(stepOf(execution, 'ask')).toMatchObject({ status: 'cancelled', error: 'Not waited out: node "assign" failed.' });
    const { approvalId } = stepOf(execution, 'ask')!.result as { approvalId: string };
    expect((await api.get(`/api/approvals/${approvalId}`)).body.approval.status).toBe('cancelled');
  });

  it('keeps waiting across a worker restart, and a decision made while the worker is stopped is applied once it is back, exactly once', async () => {
    const run = await refundRun(['dana', 'lee']);
    const asked = await approvalAsked(run.api, run.workflowId, 'ask');
    await app.worker!.stop();
    await app.startWorker();
    await app.worker!.stop();
    try {
      expectStatus(await decide(run.api, asked.id, { userId: 'dana', decision: 'approve' }), 200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await getTicket(run.api, run.ticketId)).tags).toEqual([]);
    } finally {
      await app.startWorker();
    }
    const { execution, tags } = await outcome(run);
    expect(tags).toEqual(['refund-approved']);
    expect(execution.steps.filter((s) => s.nodeId === 'approved')).toHaveLength(1);
    expect(stepOf(execution, 'ask')?.result).toEqual({ approvalId: asked.id, decision: 'approved', decidedBy: ['dana'] });
    expect((await run.api.get(`/api/approvals/${asked.id}`)).body.approval.decisions).toHaveLength(1);
  });

  it('a decision recorded while Temporal does not answer is delivered by the relay once it does, exactly once', async () => {
    const run = await refundRun(['dana', 'lee']);
    const asked = await approvalAsked(run.api, run.workflowId, 'ask');
    // An API process that cannot reach Temporal: every call to it fails as an outage does.
    const away = (): Promise<never> => Promise.reject(Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 }));
    const unreachable: WorkflowEngine = { start: away, cancel: away, signalCustomerReply: away, signalApprovalDecided: away, ping: away };
    const offline = await startTestApp({ engine: unreachable });
    // This file's relay leaves the workspace alone meanwhile: Temporal "stays away" until it serves it again.
    app.workspaceIds.delete(run.workspaceId);
    try {
      const res = await decide(client(offline.baseUrl, run.key), asked.id, { userId: 'lee', decision: 'approve' });
      expectStatus(res, 200);
      expect(res.body.approval.status).toBe('approved');
      const row = await app.orm.em.fork().findOneOrFail(Approval, { id: asked.id });
      expect(row).toMatchObject({ signalPending: true, signalAttempts: 1 });
      expect(row.signalError).toMatch(/UNAVAILABLE/);
    } finally {
      await offline.close();
      app.workspaceIds.add(run.workspaceId);
    }
    const { execution, tags } = await outcome(run);
    expect(tags).toEqual(['refund-approved']);
    expect(stepOf(execution, 'ask')?.result).toMatchObject({ decision: 'approved', decidedBy: ['lee'] });
    await eventually(async () => ((await app.orm.em.fork().findOneOrFail(Approval, { id: asked.id })).signalPending ? undefined : true), 10_000, 'the signal acknowledged');
  });

  it('the API guide\'s approvals examples run as written against a running Deskflow', async () => {
    const { ws } = await engineWorkspace(app, [{ userId: 'dana' }]);
    const blocks = [...fs.readFileSync(path.join(repoRoot, 'docs/api.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const block = (test: (text: string) => boolean) => blocks.find(test) ?? expect.fail('docs/api.md lacks a block');
    const script = [
      block((b) => b.includes('export DESKFLOW_KEY=')),
      `DESKFLOW_KEY='${ws.key}'`,
      `BASE='${app.baseUrl}'`,
      block((b) => b.startsWith('TICKET=$(')),
      'echo',
      block((b) => b.includes('/api/members')),
      'echo',
      block((b) => b.startsWith('REFUND=$(')),
      'echo',
      block((b) => b.includes('APPROVAL=$(')),
      'echo',
      block((b) => b.includes('/decision')),
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: repoRoot, timeout: 60_000 });
    // One JSON answer a line: answers printed one after the other (curl adds no newline) are split where one ends and the next begins.
    const lines = stdout.replace(/\}\{"/g, '}\n{"').split('\n').filter((l) => l.startsWith('{'));
    expect(JSON.parse(lines.find((l) => l.startsWith('{"members"'))!)).toEqual({ members: [{ userId: 'dana', role: 'member' }] });
    const [asked, decided] = lines.filter((l) => l.startsWith('{"approval"')).map((l) => JSON.parse(l).approval);
    expect(asked).toMatchObject({ status: 'pending', approvers: ['dana'], question: 'Refund 120 EUR on Printer on fire?' });
    expect(decided).toMatchObject({ id: asked.id, status: 'approved', decisions: [{ userId: 'dana', decision: 'approve', comment: 'Loyal customer.' }] });
    expect(JSON.parse(lines.find((l) => l.startsWith('{"data"'))!).data.tags).toEqual(['refund-approved']);
    expect(JSON.parse(lines.at(-1)!).error.code).toBe('approval_not_pending');
  });
});
