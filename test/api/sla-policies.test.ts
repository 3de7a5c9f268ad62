import { describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace, type Client } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, UUID } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { expectStatus } from '../helpers/api.ts';

// docs/sla.md, "Policies": /api/sla-policies, in the key's workspace.

const app = useTestApp();
const { api } = useWorkspace(app);

const POLICY_FIELDS = ['calendarId', 'createdAt', 'description', 'id', 'isActive', 'match', 'name', 'pauseOn', 'position', 'targets', 'updatedAt'];
const urgentFirstReply = { metric: 'first_reply', priority: 'urgent', seconds: 3600, warnBeforeSeconds: 900 };
const policy = (over: Record<string, unknown> = {}) => ({ name: 'Urgent within the hour', targets: [urgentFirstReply], ...over });
const calendarBody = { name: 'Office', timeZone: 'Europe/Berlin', hours: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, from: '09:00', to: '17:00' })) };

async function createPolicy(c: Client, body: Record<string, unknown> = policy()): Promise<any> {
  const res = await c.post('/api/sla-policies', body);
  expectStatus(res, 201);
  return res.body.policy;
}
async function createCalendar(c: Client): Promise<string> {
  const res = await c.post('/api/calendars', calendarBody);
  expectStatus(res, 201);
  return res.body.calendar.id;
}
const freshApi = async () => client(app.baseUrl, (await createWorkspace(app.orm)).key);

describe('POST /api/sla-policies', () => {
  it('answers 201 { policy } with the defaults: active, after the last, pausing on pending, every ticket, calendar time', async () => {
    const own = await freshApi();
    const res = await own.post('/api/sla-policies', policy());
    expectStatus(res, 201);
    expectJson(res);
    const created = expectOnly(res.body, 'policy', POLICY_FIELDS);
    expect(created).toMatchObject({ name: 'Urgent within the hour', description: null, isActive: true, position: 0, match: null, calendarId: null, targets: [urgentFirstReply], pauseOn: ['pending'] });
    expect(created.id).toMatch(UUID);
    expect(created.createdAt).toMatch(ISO_UTC);
    expect(created.updatedAt).toBe(created.createdAt);
    expect((await createPolicy(own, policy({ name: 'Second' }))).position).toBe(1);
  });

  it('keeps what it is given: description, match, calendar, pauseOn, position, inactive', async () => {
    const calendarId = await createCalendar(api);
    const match = { match: 'any', conditions: [{ field: 'ticket.tags', operator: 'contains', value: 'vip' }, { field: 'ticket.priority', operator: 'in', value: ['high', 'urgent'] }] };
    const body = policy({ description: 'VIPs', match, calendarId, pauseOn: ['pending', 'escalated'], position: 7, isActive: false, targets: [urgentFirstReply, { metric: 'resolution', priority: 'high', seconds: 28_800 }] });
    expect(await createPolicy(api, body)).toMatchObject({ ...body });
  });

  it('refuses every broken rule with a 400 naming the field', async () => {
    const other = await freshApi();
    const foreignCalendar = await createCalendar(other);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ targets: [urgentFirstReply] }, 'name', /required/],
      [policy({ name: '  ' }), 'name', /blank/],
      [policy({ name: 'x'.repeat(201) }), 'name', /at most 200/],
      [{ name: 'No targets' }, 'targets', /list/],
      [policy({ targets: [urgentFirstReply, { metric: 'resolution', priority: 'urgent', seconds: 60 }, { metric: 'next_reply', priority: 'low', seconds: 600, warnBeforeSeconds: 600 }] }), 'targets[2].warnBeforeSeconds', /less than seconds \(600\)/],
      [policy({ targets: [{ ...urgentFirstReply, warnBeforeSeconds: 0 }] }), 'targets[0].warnBeforeSeconds', /from 1/],
      [policy({ targets: [{ ...urgentFirstReply, metric: 'first_response' }] }), 'targets[0].metric', /first_reply, next_reply, resolution/],
      [policy({ targets: [{ ...urgentFirstReply, priority: 'critical' }] }), 'targets[0].priority', /low, medium, high, urgent/],
      [policy({ targets: [{ ...urgentFirstReply, seconds: 0 }] }), 'targets[0].seconds', /from 1/],
      [policy({ targets: [{ ...urgentFirstReply, seconds: 1.5 }] }), 'targets[0].seconds', /whole number/],
      [policy({ targets: [{ ...urgentFirstReply, seconds: 31_536_001 }] }), 'targets[0].seconds', /31536000/],
      [policy({ targets: [{ ...urgentFirstReply, note: 'x' }] }), 'targets[0].note', /Unknown field/],
      [policy({ targets: [{ metric: 'first_reply', priority: 'urgent' }] }), 'targets[0].seconds', /seconds/],
      [policy({ targets: [urgentFirstReply, { metric: 'resolution', priority: 'urgent', seconds: 60 }, { ...urgentFirstReply, seconds: 60 }] }), 'targets[2]', /second first_reply target for urgent tickets \(also targets\[0\]\)/],
      [policy({ pauseOn: ['solved'] }), 'pauseOn[0]', /open, pending, escalated/],
      [policy({ pauseOn: ['pending', 'pending'] }), 'pauseOn[1]', /twice/],
      [policy({ position: -1 }), 'position', /from 0/],
      [policy({ isActive: 'yes' }), 'isActive', /true or false/],
      [policy({ calendarId: UNKNOWN_ID }), 'calendarId', /no calendar/],
      [policy({ calendarId: foreignCalendar }), 'calendarId', /no calendar/],
      [policy({ calendarId: 'berlin' }), 'calendarId', /no calendar/],
      [policy({ workspaceId: UNKNOWN_ID }), 'workspaceId', /Unknown field/],
      [policy({ match: { field: 'ticket.tags', operator: 'includes', value: 'vip' } }), 'match.operator', /unknown operator "includes"/],
      [policy({ match: { field: 'message.body', operator: 'contains', value: 'refund' } }), 'match.field', /ticket field/],
      [policy({ match: { field: 'ticket.colour', operator: 'equals', value: 'red' } }), 'match.field', /the ticket has no field "colour"/],
      [policy({ match: { field: 'status', operator: 'changed_to', value: 'open' } }), 'match.operator', /reads a change, the time or a calendar/],
      [policy({ match: { field: 'ticket.createdAt', operator: 'older_than', value: { seconds: 60 } } }), 'match.operator', /reads a change, the time or a calendar/],
      [policy({ match: { match: 'all', conditions: [{ field: 'ticket.tags', operator: 'contains', value: 'vip' }, { field: 'ticket.priority', operator: 'in', value: 'urgent' }] } }), 'match.conditions[1].value', /a list/],
      [policy({ match: { field: 'ticket.subject', operator: 'equals', value: 'x', label: 'mine' } }), 'match.label', /unknown parameter "label"/],
      [policy({ match: 'vip' }), 'match', /condition must be an object/],
    ];
    const own = await freshApi();
    for (const [body, path, message] of cases) expectValidation(await own.post('/api/sla-policies', body), path, message);
    // A number past the safe integers breaks two checks of one rule: it is told once.
    const huge = await own.post('/api/sla-policies', policy({ targets: [{ ...urgentFirstReply, seconds: 1e20 }] }));
    expect(huge.body.error.details).toEqual([{ path: 'targets[0].seconds', message: 'seconds must be a whole number of seconds from 1 to 31536000.' }]);
    expect((await own.get('/api/sla-policies')).body.policies).toEqual([]);
  });

  it('takes a target of every metric and priority, and no more', async () => {
    const all = ['first_reply', 'next_reply', 'resolution'].flatMap((metric) => ['low', 'medium', 'high', 'urgent'].map((priority) => ({ metric, priority, seconds: 60 })));
    expect((await createPolicy(api, policy({ targets: all }))).targets).toHaveLength(12);
    expectValidation(await api.post('/api/sla-policies', policy({ targets: [...all, all[0]] })), 'targets', /at most 12/);
  });
});

describe('GET, PATCH and DELETE /api/sla-policies/:id, GET /api/sla-policies', () => {
  it('lists in the order they are matched: position, then oldest first', async () => {
    const own = await freshApi();
    const b = await createPolicy(own, policy({ name: 'B', position: 5 }));
    const a = await createPolicy(own, policy({ name: 'A', position: 1 }));
    const c = await createPolicy(own, policy({ name: 'C', position: 5 }));
    const res = await own.get('/api/sla-policies');
    expectStatus(res, 200);
    expect(res.body.policies.map((p: { name: string }) => p.name)).toEqual(['A', 'B', 'C']);
    expect(res.body.policies[0]).toEqual(a);
    await own.patch(`/api/sla-policies/${c.id}`, { position: 0 });
    expect((await own.get('/api/sla-policies')).body.policies.map((p: { id: string }) => p.id)).toEqual([c.id, a.id, b.id]);
  });

  it('PATCH replaces the fields given and moves updatedAt; match null means every ticket again', async () => {
    const created = await createPolicy(api, policy({ match: { field: 'ticket.tags', operator: 'contains', value: 'vip' } }));
    const res = await api.patch(`/api/sla-policies/${created.id}`, { name: 'Renamed', targets: [{ metric: 'resolution', priority: 'low', seconds: 86_400 }], match: null });
    expectStatus(res, 200);
    expect(res.body.policy).toMatchObject({ ...created, name: 'Renamed', targets: [{ metric: 'resolution', priority: 'low', seconds: 86_400 }], match: null, updatedAt: expect.any(String) });
    expect(Date.parse(res.body.policy.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await api.get(`/api/sla-policies/${created.id}`)).body).toEqual(res.body);
  });

  it('PATCH refuses an empty change, unknown fields and broken rules, changing nothing', async () => {
    const created = await createPolicy(api);
    expectValidation(await api.patch(`/api/sla-policies/${created.id}`, {}), '(body)', /at least one/);
    expectValidation(await api.patch(`/api/sla-policies/${created.id}`, { version: 2 }), 'version', /Unknown field/);
    expectValidation(await api.patch(`/api/sla-policies/${created.id}`, { targets: [{ ...urgentFirstReply, warnBeforeSeconds: 3600 }] }), 'targets[0].warnBeforeSeconds', /less than seconds/);
    expect((await api.get(`/api/sla-policies/${created.id}`)).body.policy).toEqual(created);
  });

  it('DELETE answers 204; the policy is gone from the API', async () => {
    const created = await createPolicy(api);
    expect((await api.delete(`/api/sla-policies/${created.id}`)).status).toBe(204);
    expectError(await api.get(`/api/sla-policies/${created.id}`), 404, 'not_found');
    expectError(await api.delete(`/api/sla-policies/${created.id}`), 404, 'not_found');
    expect((await api.get('/api/sla-policies')).body.policies.map((p: { id: string }) => p.id)).not.toContain(created.id);
  });

  it('another workspace\'s policy, an unknown id and a malformed one are 404', async () => {
    const created = await createPolicy(api);
    const other = await freshApi();
    for (const path of [`/api/sla-policies/${created.id}`, `/api/sla-policies/${UNKNOWN_ID}`, '/api/sla-policies/urgent']) {
      expectError(await other.get(path), 404, 'not_found');
      expectError(await other.patch(path, { name: 'Mine' }), 404, 'not_found');
      expectError(await other.delete(path), 404, 'not_found');
    }
    expect((await other.get('/api/sla-policies')).body.policies).toEqual([]);
  });
});

describe('a calendar that an active policy counts', () => {
  it('cannot be deleted (409 naming the policy) until the policy is deactivated or given another calendar', async () => {
    const own = await freshApi();
    const calendarId = await createCalendar(own);
    const created = await createPolicy(own, policy({ name: 'Office hours', calendarId }));
    const refused = await own.delete(`/api/calendars/${calendarId}`);
    expectError(refused, 409, 'calendar_in_use');
    expect(refused.body.error.message).toContain(`"Office hours" (${created.id})`);
    expect(refused.body.error.message).toMatch(/an active SLA policy/);

    await own.patch(`/api/sla-policies/${created.id}`, { isActive: false });
    expect((await own.delete(`/api/calendars/${calendarId}`)).status).toBe(204);
    // Activating it again with its calendar gone is refused, naming calendarId.
    expectValidation(await own.patch(`/api/sla-policies/${created.id}`, { isActive: true }), 'calendarId', /no calendar/);
    expect((await own.get(`/api/sla-policies/${created.id}`)).body.policy.isActive).toBe(false);
  });

  it('a deleted policy does not hold its calendar', async () => {
    const own = await freshApi();
    const calendarId = await createCalendar(own);
    const created = await createPolicy(own, policy({ calendarId }));
    await own.delete(`/api/sla-policies/${created.id}`);
    expect((await own.delete(`/api/calendars/${calendarId}`)).status).toBe(204);
  });
});
