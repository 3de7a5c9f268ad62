import { describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import type { Client } from '../helpers/app.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { activeWorkflow, executionAtStep, finishedExecutions, getTicket, listExecutions, openTicket, stepOf, stepStates } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { actionNode, conditionNode } from '../helpers/graphs.ts';

// Runs that count open time (docs/automations.md, "Business hours"), on a real Temporal dev
// server: business-time delays and wait_for_reply, and conditions that name a calendar, before
// any action (walked when the execution is created) and after one (evaluated by the run).
//
// Two calendars in UTC make the clock predictable: ALWAYS open, and CLOSED for today and the
// next two days (holidays), open at any hour after that.

const app = useEngineApp();

const DAY = 86_400_000;
const allDay = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, from: '00:00', to: '24:00' }));
const utcDate = (t: number) => new Date(t).toISOString().slice(0, 10);

type Desk = { api: Client; open: string; closed: string; closedUntil: number };

/** A workspace with the two calendars. */
async function desk(): Promise<Desk> {
  const { api } = await engineWorkspace(app);
  const now = Date.now();
  const make = async (name: string, holidays: Array<{ date: string; name: string }>) => {
    const res = await api.post('/api/calendars', { name, timeZone: 'UTC', hours: allDay, holidays });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.calendar.id as string;
  };
  const days = [0, 1, 2].map((k) => utcDate(now + k * DAY));
  return {
    api,
    open: await make('Always open', []),
    closed: await make('Closed until the day after tomorrow', days.map((date) => ({ date, name: `closed ${date}` }))),
    closedUntil: Date.parse(`${days[2]}T00:00:00Z`) + DAY,
  };
}

const tag = (id: string, value: string) => actionNode(id, { actionType: 'add_tag', tag: value });

async function temporalRun(workflowId: string) {
  const execution = await app.orm.em.fork().findOneOrFail(Execution, { workflow: workflowId }, { orderBy: { startedAt: 'desc' } });
  return app.engine.client.workflow.getHandle(execution.temporalWorkflowId);
}

describe('delay { businessSeconds, calendarId }', () => {
  it('while the desk is open, waits that much open time; the step shows until', async () => {
    const { api, open } = await desk();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > wait > after', [actionNode('wait', { actionType: 'delay', businessSeconds: 1, calendarId: open }), tag('after', 'waited')]);
    const ticketId = await openTicket(api);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    const step = stepOf(waiting, 'wait')!;
    expect(Date.parse((step as { until?: string }).until!) - Date.parse(step.startedAt)).toBe(1000);

    const [done] = await finishedExecutions(api, workflowId);
    expect(stepStates(done)).toEqual([['start', 'passed'], ['wait', 'completed'], ['after', 'completed']]);
    expect(stepOf(done, 'wait')).toMatchObject({ until: (step as { until?: string }).until });
    expect((await getTicket(api, ticketId)).tags).toEqual(['waited']);
  });

  it('starting while closed, counts from the next opening: until, current details and timer say so', async () => {
    const { api, closed, closedUntil } = await desk();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > wait > after', [actionNode('wait', { actionType: 'delay', businessSeconds: 3600, calendarId: closed }), tag('after', 'waited')]);
    await openTicket(api);
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    expect(stepOf(waiting, 'wait')).toMatchObject({ status: 'waiting', until: new Date(closedUntil + 3_600_000).toISOString() });

    const handle = await temporalRun(workflowId);
    const details = await eventually(async () => {
      const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return currentDetails ? currentDetails : undefined;
    }, 10_000, 'the current details of the waiting run');
    expect(details).toBe(`Waiting: wait: delay of 1 hour of open time (calendar "Closed until the day after tomorrow") until ${new Date(closedUntil + 3_600_000).toISOString()}`);
    const timers = (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes);
    expect(timers).toHaveLength(1);
    expect(Buffer.from(timers[0].userMetadata!.summary!.data!).toString()).toContain(`until ${new Date(closedUntil + 3_600_000).toISOString()}`);

    const execution = (await listExecutions(api, workflowId))[0];
    expect((await api.post(`/api/workflows/${workflowId}/executions/${execution.id}/cancel`)).status).toBe(202);
  });
});

describe('a business-time wait that cannot end', () => {
  it('fails its node, saying why, and the execution with it', async () => {
    const { api } = await engineWorkspace(app);
    const rare = (await api.post('/api/calendars', { name: 'One minute a week', timeZone: 'UTC', hours: [{ day: 'mon', from: '09:00', to: '09:01' }] })).body.calendar.id;
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > wait > after', [actionNode('wait', { actionType: 'delay', businessSeconds: 31_536_000, calendarId: rare }), tag('after', 'never')]);
    const ticketId = await openTicket(api);
    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('failed');
    expect(stepOf(done, 'wait')).toMatchObject({ status: 'failed', error: expect.stringMatching(/^A wait of 8760 hours of open time of calendar "One minute a week" cannot end: the calendar is open less than 8760 hours in the ten years after /) });
    expect(done.error).toMatch(/^Node "wait" \(delay\) failed: A wait of 8760 hours/);
    expect(stepOf(done, 'after')?.status).toBe('not_reached');
    expect((await getTicket(api, ticketId)).tags).toEqual([]);
  });
});

describe('wait_for_reply { timeoutSeconds, calendarId }', () => {
  const graph = (calendarId: string, timeoutSeconds: number) => [
    actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds, calendarId }),
    tag('replied', 'customer-replied'),
    tag('silent', 'no-reply'),
  ];

  it('times out after that much open time', async () => {
    const { api, open } = await desk();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > await >true replied, await >false silent', graph(open, 1));
    const ticketId = await openTicket(api);
    const [done] = await finishedExecutions(api, workflowId);
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: false });
    const step = stepOf(done, 'await') as { until?: string; startedAt: string };
    expect(Date.parse(step.until!) - Date.parse(step.startedAt)).toBe(1000);
    expect((await getTicket(api, ticketId)).tags).toEqual(['no-reply']);
  });

  it('while closed, waits until the next opening and beyond; a reply at any hour counts', async () => {
    const { api, closed, closedUntil } = await desk();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > await >true replied, await >false silent', graph(closed, 60));
    const ticketId = await openTicket(api);
    const waiting = await executionAtStep(api, workflowId, 'await', 'waiting');
    expect(stepOf(waiting, 'await')).toMatchObject({ until: new Date(closedUntil + 60_000).toISOString() });

    await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'It is a holiday, but here you go', senderEmail: 'customer@example.com' });
    const [done] = await finishedExecutions(api, workflowId, 1, 15_000);
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: true, until: new Date(closedUntil + 60_000).toISOString() });
    expect((await getTicket(api, ticketId)).tags).toEqual(['customer-replied']);
  });
});

describe('conditions that name a calendar', () => {
  it('before any action: "was this ticket opened while we were closed?" is decided when the execution is created', async () => {
    const { api, open, closed } = await desk();
    const afterHours = (calendarId: string) =>
      activeWorkflow(api, 'ticket_created', 'start > closed >true tag', [conditionNode('closed', { field: 'ticket.createdAt', operator: 'outside_business_hours', value: calendarId }), tag('tag', 'after-hours')], `After hours ${calendarId}`);
    const whileClosed = await afterHours(closed);
    const whileOpen = await afterHours(open);
    const ticketId = await openTicket(api);

    const [tagged] = await finishedExecutions(api, whileClosed);
    expect(stepStates(tagged)).toEqual([['start', 'passed'], ['closed', 'passed'], ['tag', 'completed']]);
    const [untouched] = await finishedExecutions(api, whileOpen);
    expect(untouched.steps.map((s: { nodeId: string; result?: unknown }) => [s.nodeId, s.result])).toEqual([['start', undefined], ['closed', false]]);
    // It needed no run on the engine.
    expect((await app.orm.em.fork().findOneOrFail(Execution, { id: untouched.id })).dispatchedAt).toBeNull();
    expect((await getTicket(api, ticketId)).tags).toEqual(['after-hours']);
  });

  it('after an action, the run evaluates them at its own time, with now, ages in open and calendar time', async () => {
    const { api, open, closed } = await desk();
    const workflowId = await activeWorkflow(
      api,
      'ticket_created',
      'start > first > pause > open-now, pause > closed-now, pause > old, pause > young, open-now >true t1, closed-now >true t2, old >true t3, young >true t4',
      [
        tag('first', 'seen'),
        actionNode('pause', { actionType: 'delay', seconds: 1.5 }),
        conditionNode('open-now', { field: 'now', operator: 'in_business_hours', value: open }),
        conditionNode('closed-now', { match: 'all', conditions: [{ field: 'now', operator: 'outside_business_hours', value: closed }, { field: 'ticket.status', operator: 'equals', value: 'open' }] }),
        conditionNode('old', { field: 'ticket.createdAt', operator: 'older_than', value: { seconds: 1, calendarId: open } }),
        conditionNode('young', { field: 'ticket.createdAt', operator: 'newer_than', value: { seconds: 1, calendarId: closed } }),
        tag('t1', 'open-now'),
        tag('t2', 'closed-now'),
        tag('t3', 'one-open-second-old'),
        tag('t4', 'no-open-time-yet'),
      ],
    );
    const ticketId = await openTicket(api);
    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    for (const id of ['open-now', 'closed-now', 'old', 'young']) expect(stepOf(done, id), id).toMatchObject({ status: 'passed', result: true });
    expect((await getTicket(api, ticketId)).tags.sort()).toEqual(['closed-now', 'no-open-time-yet', 'one-open-second-old', 'open-now', 'seen']);
  });

  it('a calendar deleted while a run waits stays readable by that run', async () => {
    const { api, open } = await desk();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > pause > open-now >true t1', [
      actionNode('pause', { actionType: 'delay', seconds: 2 }),
      conditionNode('open-now', { field: 'now', operator: 'in_business_hours', value: open }),
      tag('t1', 'still-open'),
    ]);
    const ticketId = await openTicket(api);
    await executionAtStep(api, workflowId, 'pause', 'waiting');
    expect((await api.delete(`/api/calendars/${open}`)).status).toBe(409);
    expect((await api.patch(`/api/workflows/${workflowId}`, { isActive: false })).status).toBe(200);
    expect((await api.delete(`/api/calendars/${open}`)).status).toBe(204);

    const [done] = await finishedExecutions(api, workflowId);
    expect(stepOf(done, 'open-now')).toMatchObject({ result: true });
    expect((await getTicket(api, ticketId)).tags).toEqual(['still-open']);
  });
});
