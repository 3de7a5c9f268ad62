import { describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace, type Client } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, keysOf, UUID } from '../helpers/expect.ts';
import { detailPaths, UNKNOWN_ID } from '../helpers/workflows.ts';
import { actionNode, conditionNode, edge, triggerNode } from '../helpers/graphs.ts';
import { createWorkflow, expectStatus, patchWorkflow } from '../helpers/api.ts';

// docs/contract.md, "Calendars": /api/calendars, in the key's workspace; the workflow graph
// naming them (docs/automations.md, "Business hours").

const app = useTestApp();
const { api } = useWorkspace(app);

const CALENDAR_FIELDS = ['createdAt', 'holidays', 'hours', 'id', 'name', 'timeZone', 'updatedAt'];
const weekdays = (from: string, to: string) => ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, from, to }));
const berlin = () => ({ name: 'Berlin office', timeZone: 'Europe/Berlin', hours: weekdays('09:00', '17:00'), holidays: [{ date: '2026-12-25', name: 'Christmas Day' }] });

async function createCalendar(client: Client, body: Record<string, unknown> = berlin()): Promise<any> {
  const res = await client.post('/api/calendars', body);
  expectStatus(res, 201);
  return res.body.calendar;
}

const freshApi = async () => client(app.baseUrl, (await createWorkspace(app.orm)).key);

describe('POST /api/calendars', () => {
  it('answers 201 { calendar } with the calendar as given', async () => {
    const res = await api.post('/api/calendars', berlin());
    expectStatus(res, 201);
    expectJson(res);
    expectOnly(res.body, 'calendar', CALENDAR_FIELDS);
    expect(res.body.calendar).toMatchObject(berlin());
    expect(res.body.calendar.id).toMatch(UUID);
    expect(res.body.calendar.createdAt).toMatch(ISO_UTC);
    expect(res.body.calendar.updatedAt).toBe(res.body.calendar.createdAt);
  });

  it('takes several intervals a day, 24:00, zones far from UTC, and no holidays', async () => {
    const calendar = await createCalendar(api, {
      name: 'Kolkata support',
      timeZone: 'Asia/Kolkata',
      hours: [{ day: 'mon', from: '09:00', to: '12:30' }, { day: 'mon', from: '13:30', to: '18:00' }, { day: 'fri', from: '22:00', to: '24:00' }, { day: 'sat', from: '00:00', to: '06:00' }],
    });
    expect(calendar.holidays).toEqual([]);
    expect(calendar.hours).toHaveLength(4);
  });

  it('refuses unknown or misspelled time zones and offsets', async () => {
    for (const timeZone of ['Mars/Olympus', 'europe/berlin', '+02:00', 'GMT+2', '', 42]) {
      const res = await api.post('/api/calendars', { ...berlin(), timeZone });
      expectValidation(res, 'timeZone', typeof timeZone === 'string' ? /IANA time zone name/ : /string/);
    }
    expectValidation(await api.post('/api/calendars', { ...berlin(), timeZone: undefined }), 'timeZone', /required/);
  });

  it('refuses an interval that crosses midnight, saying to split it in two', async () => {
    const res = await api.post('/api/calendars', { ...berlin(), hours: [{ day: 'fri', from: '22:00', to: '06:00' }] });
    expectValidation(res, 'hours.0', /fri 22:00-06:00 crosses midnight; .* two intervals: fri 22:00-24:00 and sat 00:00-06:00/);
    const sunday = await api.post('/api/calendars', { ...berlin(), hours: [{ day: 'sun', from: '23:00', to: '01:00' }] });
    expectValidation(sunday, 'hours.0', /sun 23:00-24:00 and mon 00:00-01:00/);
  });

  it('refuses empty intervals, 00:00 as the end of a day, bad times and days, overlaps and empty hours', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [[{ day: 'mon', from: '09:00', to: '09:00' }], 'hours.0', /mon 09:00-09:00 is empty: from must be before to/],
      [[{ day: 'mon', from: '22:00', to: '00:00' }], 'hours.0.to', /written 24:00: mon 22:00-24:00/],
      [[{ day: 'mon', from: '24:00', to: '24:00' }], 'hours.0.from', /from 00:00 to 23:59/],
      [[{ day: 'mon', from: '9:00', to: '17:00' }], 'hours.0.from', /HH:MM/],
      [[{ day: 'mon', from: '09:00', to: '24:30' }], 'hours.0.to', /from 00:00 to 24:00/],
      [[{ day: 'monday', from: '09:00', to: '17:00' }], 'hours.0.day', /mon, tue, wed, thu, fri, sat, sun/],
      [[{ day: 'mon', from: '09:00', to: '17:00', note: 'x' }], 'hours.0.note', /Unknown field/],
      [[{ day: 'mon', from: '09:00', to: '12:00' }, { day: 'tue', from: '09:00', to: '12:00' }, { day: 'mon', from: '11:00', to: '13:00' }], 'hours.2', /mon 11:00-13:00 overlaps hours\[0\] \(mon 09:00-12:00\)/],
      [[], 'hours', /at least one interval/],
      ['9-5', 'hours', /list/],
    ];
    for (const [hours, path, message] of cases) expectValidation(await api.post('/api/calendars', { ...berlin(), hours }), path, message);
    // Touching intervals are fine.
    await createCalendar(api, { ...berlin(), hours: [{ day: 'mon', from: '09:00', to: '12:00' }, { day: 'mon', from: '12:00', to: '17:00' }] });
  });

  it('refuses impossible, duplicate and unnamed holidays', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [[{ date: '2026-02-30', name: 'x' }], 'holidays.0.date', /real date YYYY-MM-DD/],
      [[{ date: '25.12.2026', name: 'x' }], 'holidays.0.date', /YYYY-MM-DD/],
      [[{ date: '2026-12-25', name: 'a' }, { date: '2026-12-25', name: 'b' }], 'holidays.1.date', /2026-12-25 is listed twice \(also holidays\[0\]\)/],
      [[{ date: '2026-12-25' }], 'holidays.0.name', /required/],
      [[{ date: '2026-12-25', name: '  ' }], 'holidays.0.name', /blank/],
    ];
    for (const [holidays, path, message] of cases) expectValidation(await api.post('/api/calendars', { ...berlin(), holidays }), path, message);
  });

  it('refuses unknown fields and a missing name, creating nothing', async () => {
    const own = await freshApi();
    expectValidation(await own.post('/api/calendars', { ...berlin(), id: UNKNOWN_ID }), 'id', /Unknown field/);
    expectValidation(await own.post('/api/calendars', { ...berlin(), name: undefined }), 'name', /required/);
    expect((await own.get('/api/calendars')).body.calendars).toEqual([]);
  });
});

describe('GET, PATCH and DELETE /api/calendars/:id, GET /api/calendars', () => {
  it('lists the workspace\'s calendars newest first, and only its own', async () => {
    const own = await freshApi();
    const first = await createCalendar(own, { ...berlin(), name: 'First' });
    const second = await createCalendar(own, { ...berlin(), name: 'Second' });
    await createCalendar(api, { ...berlin(), name: 'Elsewhere' });
    const res = await own.get('/api/calendars');
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['calendars']);
    expect(res.body.calendars.map((c: { id: string }) => c.id)).toEqual([second.id, first.id]);
    expect(res.body.calendars[0]).toEqual(second);
  });

  it('gets one; another workspace\'s, an unknown or a malformed id is a 404', async () => {
    const calendar = await createCalendar(api);
    expect((await api.get(`/api/calendars/${calendar.id}`)).body).toEqual({ calendar });
    const other = await freshApi();
    for (const path of [`/api/calendars/${calendar.id}`, `/api/calendars/${UNKNOWN_ID}`, '/api/calendars/not-a-uuid']) {
      expectError(await other.get(path), 404, 'not_found');
      expectError(await other.patch(path, { name: 'Mine' }), 404, 'not_found');
      expectError(await other.delete(path), 404, 'not_found');
    }
    expect((await api.get(`/api/calendars/${calendar.id}`)).body.calendar.name).toBe('Berlin office');
  });

  it('PATCH replaces the fields given and moves updatedAt; a refused one changes nothing', async () => {
    const calendar = await createCalendar(api);
    const res = await api.patch(`/api/calendars/${calendar.id}`, { hours: [{ day: 'sat', from: '10:00', to: '14:00' }], holidays: [] });
    expectStatus(res, 200);
    expect(res.body.calendar).toMatchObject({ name: 'Berlin office', timeZone: 'Europe/Berlin', hours: [{ day: 'sat', from: '10:00', to: '14:00' }], holidays: [] });
    expect(res.body.calendar.updatedAt > calendar.updatedAt).toBe(true);
    expect((await api.get(`/api/calendars/${calendar.id}`)).body.calendar).toEqual(res.body.calendar);

    expectValidation(await api.patch(`/api/calendars/${calendar.id}`, {}), '(body)', /at least one of name, timeZone, hours, holidays/);
    expectValidation(await api.patch(`/api/calendars/${calendar.id}`, { name: 'Renamed', timeZone: 'Nowhere/Land' }), 'timeZone');
    expect((await api.get(`/api/calendars/${calendar.id}`)).body.calendar).toEqual(res.body.calendar);
  });

  it('DELETE answers 204 and the calendar is gone', async () => {
    const calendar = await createCalendar(api);
    const res = await api.delete(`/api/calendars/${calendar.id}`);
    expectStatus(res, 204);
    expect(res.body).toBeUndefined();
    expectError(await api.get(`/api/calendars/${calendar.id}`), 404, 'not_found');
    expectError(await api.delete(`/api/calendars/${calendar.id}`), 404, 'not_found');
    expect((await api.get('/api/calendars')).body.calendars.map((c: { id: string }) => c.id)).not.toContain(calendar.id);
  });
});

describe('workflows that name calendars', () => {
  const waitingGraph = (calendarId: string) => ({
    nodes: [
      triggerNode('ticket_created'),
      conditionNode('after-hours', { field: 'ticket.createdAt', operator: 'outside_business_hours', value: calendarId }),
      actionNode('wait', { actionType: 'delay', businessSeconds: 3600, calendarId }),
    ],
    edges: [edge('trigger', 'after-hours'), edge('after-hours', 'wait', 'true')],
  });

  it('saving a graph that names a calendar of another workspace or of none is a 400 naming the node', async () => {
    const foreign = await createCalendar(await freshApi());
    for (const calendarId of [foreign.id, UNKNOWN_ID]) {
      const res = await api.post('/api/workflows', { name: 'Uses a calendar', workflowJson: waitingGraph(calendarId) });
      expectValidation(res, 'workflowJson.nodes[1].data.value', new RegExp(`node "after-hours": there is no calendar "${calendarId}" in this workspace`));
      expect(detailPaths(res)).toEqual(['workflowJson.nodes[1].data.value', 'workflowJson.nodes[2].data.calendarId']);
    }
    const own = await createCalendar(api);
    const workflow = await createWorkflow(api, { workflowJson: waitingGraph(own.id) });
    const patched = await api.patch(`/api/workflows/${workflow.id}`, { workflowJson: waitingGraph(foreign.id) });
    expectValidation(patched, 'workflowJson.nodes[2].data.calendarId', /node "wait": there is no calendar/);
    expect((await api.get(`/api/workflows/${workflow.id}`)).body.workflow.version).toBe(1);
  });

  it('a calendar an active workflow names cannot be deleted: 409 naming the workflows', async () => {
    const own = await freshApi();
    const calendar = await createCalendar(own);
    const active = await createWorkflow(own, { name: 'Remind, then close', workflowJson: waitingGraph(calendar.id) });
    await patchWorkflow(own, active.id, { isActive: true });
    const inactive = await createWorkflow(own, { name: 'Draft', workflowJson: waitingGraph(calendar.id) });

    const refused = await own.delete(`/api/calendars/${calendar.id}`);
    expectError(refused, 409, 'calendar_in_use');
    expect(refused.body.error.message).toContain(`"Remind, then close" (${active.id})`);
    expect(refused.body.error.message).not.toContain(inactive.id);
    expectStatus(await own.get(`/api/calendars/${calendar.id}`), 200);

    // Deactivated, it no longer holds the calendar; the inactive workflow never did.
    await patchWorkflow(own, active.id, { isActive: false });
    expectStatus(await own.delete(`/api/calendars/${calendar.id}`), 204);
    // Saving it again, or activating it, names the calendar that is gone.
    expectValidation(await own.patch(`/api/workflows/${active.id}`, { isActive: true }), 'workflowJson.nodes[1].data.value', /no calendar/);
    expectStatus(await own.patch(`/api/workflows/${inactive.id}`, { name: 'Still a draft' }), 200);
  });

  it('a workflow whose graph merely mentions the id in text does not hold the calendar', async () => {
    const own = await freshApi();
    const calendar = await createCalendar(own);
    const workflow = await createWorkflow(own, {
      workflowJson: { nodes: [triggerNode('ticket_created'), actionNode('note', { actionType: 'add_tag', tag: calendar.id })], edges: [edge('trigger', 'note')] },
    });
    await patchWorkflow(own, workflow.id, { isActive: true });
    expectStatus(await own.delete(`/api/calendars/${calendar.id}`), 204);
  });

  it('deleting a calendar and activating a workflow that names it at once: one of them is refused', async () => {
    for (let round = 0; round < 5; round++) {
      const own = await freshApi();
      const calendar = await createCalendar(own);
      const workflow = await createWorkflow(own, { workflowJson: waitingGraph(calendar.id) });
      const [activated, deleted] = await Promise.all([own.patch(`/api/workflows/${workflow.id}`, { isActive: true }), own.delete(`/api/calendars/${calendar.id}`)]);
      const outcome = [activated.status, deleted.status];
      expect([[200, 409], [400, 204]], JSON.stringify({ activated: activated.body, deleted: deleted.body })).toContainEqual(outcome);
    }
  });
});
