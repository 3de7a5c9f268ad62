import { describe, expect, it } from 'vitest';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { createTicket, createWorkflow, expectStatus } from '../helpers/api.ts';
import { expectValidation } from '../helpers/expect.ts';
import { refundApproval } from '../helpers/graphs.ts';

// docs/automations.md, "Trying a workflow: dry run and backtest": a request_approval is not
// waited for; `approvals` picks the decision it takes, and its step says who would be asked.

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'dana' }, { userId: 'lee' }]);

const CALENDAR_HOURS = [{ day: 'mon', from: '09:00', to: '10:00' }];

async function dryRun(workflowId: string, body: Record<string, unknown>) {
  const res = await api.post(`/api/workflows/${workflowId}/dry-run`, body);
  expectStatus(res, 200);
  return res.body.dryRun;
}

describe('the dry run of a workflow that asks for approval', () => {
  it('takes the approved branch by default, and says who would be asked and what', async () => {
    const workflow = await createWorkflow(api, refundApproval(['dana', 'lee'], { quorum: 'all' }));
    const ticket = await createTicket(api, { subject: 'Refund please' });
    const run = await dryRun(workflow.id, { ticketId: ticket.id, data: { amount: 80 } });
    expect(run.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'ask', 'approved']);
    const ask = run.steps[1];
    expect(ask).toMatchObject({ status: 'completed', result: true, approvers: ['dana', 'lee'], action: { actionType: 'request_approval', question: 'Refund 80 EUR on "Refund please"?', quorum: 'all' } });
    expect(ask.until).toBeUndefined();
    expect(run.changes).toEqual({ tags: { from: [], to: ['refund-approved'] } });
    expect(run.assumptions).toContain('"ask" is taken as approved by all of dana, lee at once; a run waits for the decision.');
  });

  it('takes the rejected branch with approvals: "reject", and shows when a time-out would come at the latest', async () => {
    const workflow = await createWorkflow(api, refundApproval(['dana'], { timeoutSeconds: 7200 }));
    const ticket = await createTicket(api);
    const run = await dryRun(workflow.id, { ticketId: ticket.id, data: { amount: 80 }, approvals: 'reject', at: '2026-12-01T10:00:00Z' });
    expect(run.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'ask', 'refused']);
    expect(run.steps[1]).toMatchObject({ result: false, approvers: ['dana'], waitSeconds: 7200, until: '2026-12-01T12:00:00.000Z' });
    expect(run.assumptions).toContain('"ask" is taken as rejected by dana at once; a run waits for the decision or its time-out.');
  });

  it('counts a time-out with a calendar in its open time', async () => {
    const calendar = (await api.post('/api/calendars', { name: 'Mondays', timeZone: 'UTC', hours: CALENDAR_HOURS })).body.calendar;
    const workflow = await createWorkflow(api, refundApproval(['lee'], { timeoutSeconds: 1800, calendarId: calendar.id }));
    const ticket = await createTicket(api);
    // Saturday noon: half an hour of Monday 09:00-10:00 ends Monday 09:30.
    const run = await dryRun(workflow.id, { ticketId: ticket.id, at: '2026-11-28T12:00:00Z' });
    expect(run.steps[1]).toMatchObject({ result: true, until: '2026-11-30T09:30:00.000Z' });
  });

  it('refuses another value of approvals, and an unsaved graph whose approvers are not members', async () => {
    const workflow = await createWorkflow(api, refundApproval(['dana']));
    expectValidation(await api.post(`/api/workflows/${workflow.id}/dry-run`, { approvals: 'maybe' }), 'approvals', /"approve" or "reject"/);
    const unsaved = refundApproval(['dana', 'stranger']);
    const res = await api.post('/api/workflows/dry-run', { triggerType: 'manual', workflowJson: unsaved.workflowJson, approvals: 'approve' });
    expectValidation(res, 'workflowJson.nodes[1].data.approvers[1]', /"stranger" is not a current member or admin/);
  });

  it('backtests with every approval taken as the backtest says', async () => {
    const workflow = await createWorkflow(api, { ...refundApproval(['dana']), triggerType: 'ticket_created', workflowJson: { ...refundApproval(['dana']).workflowJson, nodes: [{ id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } }, ...refundApproval(['dana']).workflowJson.nodes.slice(1)] } });
    await createTicket(api);
    const res = await api.post(`/api/workflows/${workflow.id}/backtest`, { approvals: 'reject' });
    expectStatus(res, 200);
    expect(res.body.backtest.actionsWouldRun).toMatchObject({ request_approval: expect.any(Number), add_tag: expect.any(Number) });
    expect(res.body.backtest.sample.at(-1).steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'ask', 'refused']);
    expect(res.body.backtest.assumptions).toContain('Every request_approval is taken as rejected at once.');
  });
});
