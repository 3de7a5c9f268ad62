import { describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectValidation } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { createTicket, createWorkflow, expectStatus, setStatus } from '../helpers/api.ts';
import { actionNode, conditionNode, edge, type Json, triggerNode } from '../helpers/graphs.ts';

// Dry runs at chosen instants (docs/automations.md, "Trying a workflow" and "Business hours"):
// `at` is when the run would begin; conditions read it as `now`, waits count from it, and a
// business-time wait's step carries the deadline it would compute.

const app = useTestApp();
const { api } = useWorkspace(app);

const weekdays = (from: string, to: string) => ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, from, to }));
async function officeCalendar(): Promise<string> {
  const res = await api.post('/api/calendars', { name: 'Berlin office', timeZone: 'Europe/Berlin', hours: weekdays('09:00', '17:00'), holidays: [{ date: '2026-04-03', name: 'Good Friday' }, { date: '2026-04-06', name: 'Easter Monday' }] });
  expectStatus(res, 201);
  return res.body.calendar.id;
}

const FRIDAY_1650 = '2026-03-06T16:50:00+01:00';
const dryRunGraph = (nodes: Json[], edges: Json[], extra: Json = {}) => api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: { nodes, edges }, ...extra });

describe('a dry run at a chosen instant', () => {
  it('what happens to a ticket created Friday 16:50: tagged as arrived after hours? no; reminded after 16 open hours on Tuesday 16:50, still within hours', async () => {
    const office = await officeCalendar();
    const ticket = await createTicket(api, { subject: 'Printer on fire' });
    const res = await dryRunGraph(
      [
        triggerNode('ticket_created', 'created'),
        conditionNode('after-hours', { field: 'now', operator: 'outside_business_hours', value: office }),
        actionNode('tag', { actionType: 'add_tag', tag: 'after-hours' }),
        actionNode('wait-16h', { actionType: 'delay', businessSeconds: 57_600, calendarId: office }),
        conditionNode('open-then', { field: 'now', operator: 'in_business_hours', value: office }),
        actionNode('remind', { actionType: 'send_reply', body: 'Any news?' }),
      ],
      [edge('created', 'after-hours'), edge('after-hours', 'tag', 'true'), edge('after-hours', 'wait-16h', 'false'), edge('wait-16h', 'open-then'), edge('open-then', 'remind', 'true')],
      { ticketId: ticket.id, at: FRIDAY_1650 },
    );
    expectStatus(res, 200);
    expect(res.body.dryRun.at).toBe('2026-03-06T15:50:00.000Z');
    expect(res.body.dryRun.steps).toEqual([
      { nodeId: 'created', status: 'passed' },
      { nodeId: 'after-hours', status: 'passed', result: false },
      // Ten minutes on Friday, eight hours on Monday, seven hours fifty on Tuesday.
      { nodeId: 'wait-16h', status: 'completed', action: { actionType: 'delay', businessSeconds: 57_600, calendarId: office }, waitSeconds: 4 * 86_400, until: '2026-03-10T15:50:00.000Z' },
      { nodeId: 'open-then', status: 'passed', result: true },
      { nodeId: 'remind', status: 'completed', action: { actionType: 'send_reply', body: 'Any news?' } },
    ]);
  });

  it('a ticket created on Saturday arrived after hours, and its wait starts counting on Monday at 09:00', async () => {
    const office = await officeCalendar();
    const res = await dryRunGraph(
      [
        triggerNode('ticket_created', 'created'),
        conditionNode('after-hours', { field: 'now', operator: 'outside_business_hours', value: office }),
        actionNode('wait', { actionType: 'delay', businessSeconds: 3600, calendarId: office }),
      ],
      [edge('created', 'after-hours'), edge('after-hours', 'wait', 'true')],
      { at: '2026-03-07T11:00:00+01:00' },
    );
    expectStatus(res, 200);
    expect(res.body.dryRun.steps[1]).toEqual({ nodeId: 'after-hours', status: 'passed', result: true });
    expect(res.body.dryRun.steps[2]).toMatchObject({ waitSeconds: 47 * 3600, until: '2026-03-09T09:00:00.000Z' });
  });

  it('a business-time wait_for_reply over a holiday and daylight saving: its deadline in until, its length in clock seconds', async () => {
    const office = await officeCalendar();
    const ticket = await createTicket(api);
    await setStatus(api, ticket.id, 'pending');
    const res = await dryRunGraph(
      [
        triggerNode('ticket_created', 'created'),
        actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 40 * 3600, calendarId: office }),
        actionNode('close', { actionType: 'set_status', status: 'closed' }),
      ],
      [edge('created', 'await'), edge('await', 'close', 'false')],
      { ticketId: ticket.id, at: '2026-03-27T16:50:00+01:00' },
    );
    expectStatus(res, 200);
    // Friday 27 March 10 minutes (CET), Monday-Thursday in CEST (32 hours), Good Friday and
    // Easter Monday closed, Tuesday 7 April 7h50: 16:50 CEST. An hour of the clock was skipped.
    expect(res.body.dryRun.steps[1]).toEqual({
      nodeId: 'await',
      status: 'completed',
      action: { actionType: 'wait_for_reply', timeoutSeconds: 144_000, calendarId: office },
      result: false,
      waitSeconds: 11 * 86_400 - 3600,
      until: '2026-04-07T14:50:00.000Z',
    });
    expect(res.body.dryRun.changes.status).toEqual({ from: 'pending', to: 'closed' });
  });

  it('ages are measured up to `at`: a ticket updated Friday 16:50 is 16 open hours old on Tuesday 16:50, not a second earlier', async () => {
    const office = await officeCalendar();
    const ticket = await createTicket(api);
    await app.orm.em.fork().getConnection().execute('update tickets set updated_at = ? where id = ?', [new Date(FRIDAY_1650), ticket.id]);
    const workflow = await createWorkflow(api, {
      triggerType: 'manual',
      workflowJson: {
        nodes: [triggerNode('manual', 'go'), conditionNode('idle', { field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 57_600, calendarId: office } })],
        edges: [edge('go', 'idle')],
      },
    });
    const idleAt = async (at: string) => (await api.post(`/api/workflows/${workflow.id}/dry-run`, { ticketId: ticket.id, at })).body.dryRun.steps[1].result;
    expect(await idleAt('2026-03-10T16:50:00+01:00')).toBe(true);
    expect(await idleAt('2026-03-10T16:49:59+01:00')).toBe(false);
    expect(await idleAt('2026-03-09T23:00:00+01:00')).toBe(false);
  });

  it('without `at` it is now, and the answer says when that was', async () => {
    const before = new Date().toISOString();
    const res = await dryRunGraph([triggerNode('ticket_created', 'created'), conditionNode('after', { field: 'now', operator: 'greater_or_equal', value: before })], [edge('created', 'after')]);
    expectStatus(res, 200);
    expect(res.body.dryRun.steps[1].result).toBe(true);
    expect(res.body.dryRun.at >= before).toBe(true);
    expect(res.body.dryRun.at <= new Date().toISOString()).toBe(true);
  });

  it('shows where a business-time wait could never end', async () => {
    const rare = (await api.post('/api/calendars', { name: 'One minute a week', timeZone: 'UTC', hours: [{ day: 'mon', from: '09:00', to: '09:01' }] })).body.calendar.id;
    const res = await dryRunGraph(
      [triggerNode('ticket_created', 'created'), actionNode('wait', { actionType: 'delay', businessSeconds: 31_536_000, calendarId: rare }), actionNode('after', { actionType: 'add_tag', tag: 'x' })],
      [edge('created', 'wait'), edge('wait', 'after')],
      { at: FRIDAY_1650 },
    );
    expectStatus(res, 200);
    expect(res.body.dryRun.steps).toEqual([
      { nodeId: 'created', status: 'passed' },
      {
        nodeId: 'wait',
        status: 'failed',
        action: { actionType: 'delay', businessSeconds: 31_536_000, calendarId: rare },
        error: 'A wait of 8760 hours of open time cannot end: the calendar is open less than 8760 hours in the ten years after 2026-03-06T15:50:00.000Z.',
      },
    ]);
  });

  it('refuses an `at` that is no instant, and a graph that names a calendar the workspace does not have', async () => {
    for (const at of ['Friday 16:50', '2026-03-06T16:50', '2026-02-30', 1700000000]) {
      expectValidation(await dryRunGraph([triggerNode('ticket_created', 'created')], [], { at }), 'at', /ISO 8601/);
    }
    const res = await dryRunGraph(
      [triggerNode('ticket_created', 'created'), actionNode('wait', { actionType: 'delay', businessSeconds: 60, calendarId: UNKNOWN_ID })],
      [edge('created', 'wait')],
    );
    expectValidation(res, 'workflowJson.nodes[1].data.calendarId', /node "wait": there is no calendar/);
  });
});

describe('a backtest', () => {
  it('evaluates each event as if it were the time of that event', async () => {
    const api = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    const ticket = await createTicket(api);
    const updatedAt = new Date().toISOString();
    await setStatus(api, ticket.id, 'pending');
    // After the event, before the backtest: `now` is before it only at the time of the event.
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const workflow = await createWorkflow(api, {
      triggerType: 'ticket_updated',
      workflowJson: {
        nodes: [
          triggerNode('ticket_updated', 'updated'),
          conditionNode('then', { field: 'now', operator: 'less_than', value: between }),
          actionNode('tag', { actionType: 'add_tag', tag: 'seen' }),
        ],
        edges: [edge('updated', 'then'), edge('then', 'tag', 'true')],
      },
    });
    const res = await api.post(`/api/workflows/${workflow.id}/backtest`, { since: new Date(Date.parse(updatedAt) - 60_000).toISOString() });
    expectStatus(res, 200);
    expect(res.body.backtest).toMatchObject({ eventsExamined: 1, matched: 1, actionsWouldRun: { add_tag: 1 } });
  });
});
