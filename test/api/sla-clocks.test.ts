import { describe, expect, it } from 'vitest';
import { newWorkspace, useTestApp, type Client } from '../helpers/app.ts';
import { expectError, expectOnly, expectValidation, ISO_UTC } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { createTicket, expectStatus, getTicket, setStatus } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { after, createPolicy, eventsDelivered, HOUR, slaOf, slaWhen, targetOf, useClockRelay } from '../helpers/sla.ts';

// docs/sla.md, "The clocks": GET /api/v1/tickets/:id/sla and GET /api/sla/tickets after real
// ticket activity through the API, with the outbox relay keeping the clocks (no Temporal: the
// timers are tested in test/engine/sla-timers.test.ts).

const app = useTestApp();
const relay = useClockRelay(app);

const TARGET_FIELDS = ['breachedAt', 'dueAt', 'fulfilledAt', 'metric', 'pausedSeconds', 'startedAt', 'status', 'warnAt'];
const standard = {
  name: 'Standard',
  targets: [
    { metric: 'first_reply', priority: 'urgent', seconds: HOUR, warnBeforeSeconds: 900 },
    { metric: 'first_reply', priority: 'medium', seconds: 4 * HOUR },
    { metric: 'next_reply', priority: 'medium', seconds: 2 * HOUR },
    { metric: 'resolution', priority: 'medium', seconds: 24 * HOUR },
    { metric: 'resolution', priority: 'urgent', seconds: 8 * HOUR },
  ],
};

/** A workspace of this file with an agent, its events kept by the relay. */
async function workspace(): Promise<Client & { workspaceId: string }> {
  const { ws, api } = await newWorkspace(app, [{ userId: 'agent-1' }]);
  relay.workspaceIds.add(ws.workspaceId);
  return Object.assign(api, { workspaceId: ws.workspaceId });
}

const reply = (api: Client, id: string) => api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'On it.' });
const customerWrites = (api: Client, id: string) => api.post(`/api/v1/tickets/${id}/messages`, { body: 'Any news?', senderEmail: 'customer@example.com' });

describe('GET /api/v1/tickets/:id/sla', () => {
  it('is { sla: null } for a ticket no policy governs, and 404 for a ticket not of the workspace', async () => {
    const api = await workspace();
    const ticket = await createTicket(api);
    expect((await api.get(`/api/v1/tickets/${ticket.id}/sla`)).body).toEqual({ sla: null });
    const other = await workspace();
    for (const id of [ticket.id, UNKNOWN_ID, 'nope']) expectError(await other.get(`/api/v1/tickets/${id}/sla`), 404, 'not_found');
  });

  it('shows the governing policy and each target measured from the ticket\'s creation; the ticket\'s own fields stay as they were', async () => {
    const api = await workspace();
    const policy = await createPolicy(api, standard);
    const ticket = await createTicket(api);
    const sla = await slaWhen(api, ticket.id, (s) => s !== null);
    expect(Object.keys(sla).sort()).toEqual(['policyId', 'policyName', 'targets']);
    expect(sla).toMatchObject({ policyId: policy.id, policyName: 'Standard' });
    for (const t of sla.targets) expect(Object.keys(t).sort()).toEqual(TARGET_FIELDS);
    expect(sla.targets.map((t: { metric: string }) => t.metric)).toEqual(['first_reply', 'resolution']);
    expect(targetOf(sla, 'first_reply')).toEqual({ metric: 'first_reply', status: 'active', startedAt: ticket.createdAt, dueAt: after(ticket.createdAt, 4 * HOUR * 1000), warnAt: null, pausedSeconds: 0, fulfilledAt: null, breachedAt: null });
    expect(targetOf(sla, 'resolution')).toMatchObject({ status: 'active', dueAt: after(ticket.createdAt, 24 * HOUR * 1000) });
    expectOnly((await api.get(`/api/v1/tickets/${ticket.id}`)).body, 'data', ['assignedTo', 'createdAt', 'customerEmail', 'customerName', 'id', 'priority', 'resolutionType', 'source', 'status', 'subject', 'tags', 'updatedAt']);
  });

  it('an agent\'s reply meets first_reply; a customer message then starts next_reply, met by the next reply', async () => {
    const api = await workspace();
    await createPolicy(api, standard);
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => s !== null);
    const first = await reply(api, ticket.id);
    expectStatus(first, 201);
    const met = await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').status === 'fulfilled');
    expect(targetOf(met, 'first_reply')).toMatchObject({ fulfilledAt: first.body.data.createdAt, breachedAt: null });
    expect(targetOf(met, 'next_reply')).toBeUndefined();

    const asked = await customerWrites(api, ticket.id);
    const owed = await slaWhen(api, ticket.id, (s) => targetOf(s, 'next_reply')?.status === 'active');
    expect(targetOf(owed, 'next_reply')).toMatchObject({ startedAt: asked.body.data.createdAt, dueAt: after(asked.body.data.createdAt, 2 * HOUR * 1000) });
    const second = await reply(api, ticket.id);
    const answered = await slaWhen(api, ticket.id, (s) => targetOf(s, 'next_reply')?.status === 'fulfilled');
    expect(targetOf(answered, 'next_reply').fulfilledAt).toBe(second.body.data.createdAt);
  });

  it('resolution stops while the ticket is pending, resumes where it stood, is met when solved and resumed when reopened', async () => {
    const api = await workspace();
    await createPolicy(api, standard);
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => s !== null);
    const pending = await setStatus(api, ticket.id, 'pending');
    const paused = await slaWhen(api, ticket.id, (s) => targetOf(s, 'resolution').status === 'paused');
    expect(targetOf(paused, 'resolution')).toMatchObject({ dueAt: null, warnAt: null });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const open = await setStatus(api, ticket.id, 'open');
    const resumed = await slaWhen(api, ticket.id, (s) => targetOf(s, 'resolution').status === 'active');
    const stood = Date.parse(open.updatedAt) - Date.parse(pending.updatedAt);
    expect(targetOf(resumed, 'resolution').pausedSeconds).toBe(Math.floor(stood / 1000));
    expect(targetOf(resumed, 'resolution').dueAt).toBe(after(ticket.createdAt, 24 * HOUR * 1000 + stood));

    const solved = await setStatus(api, ticket.id, 'solved');
    expect(targetOf(await slaWhen(api, ticket.id, (s) => targetOf(s, 'resolution').status === 'fulfilled'), 'resolution').fulfilledAt).toBe(solved.updatedAt);
    await setStatus(api, ticket.id, 'open');
    const reopened = await slaWhen(api, ticket.id, (s) => targetOf(s, 'resolution').status === 'active');
    expect(targetOf(reopened, 'resolution')).toMatchObject({ startedAt: ticket.createdAt, fulfilledAt: null });
  });

  it('a priority change measures from the same start: a medium ticket made urgent past its target has breached at once', async () => {
    const api = await workspace();
    await createPolicy(api, { name: 'Short', targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 1 }, { metric: 'first_reply', priority: 'medium', seconds: HOUR }] });
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply')?.status === 'active');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const made = await api.patch(`/api/v1/tickets/${ticket.id}`, { priority: 'urgent' });
    const breached = await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').status === 'breached');
    expect(targetOf(breached, 'first_reply')).toMatchObject({ breachedAt: made.body.data.updatedAt, dueAt: made.body.data.updatedAt, startedAt: ticket.createdAt });
    // Met later, it stays breached, with fulfilledAt as well.
    const late = await reply(api, ticket.id);
    const stays = await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').fulfilledAt !== null);
    expect(targetOf(stays, 'first_reply')).toMatchObject({ status: 'breached', fulfilledAt: late.body.data.createdAt });
  });

  it('a ticket that comes to match a policy later is measured from its creation, with what happened before counted', async () => {
    const api = await workspace();
    await createPolicy(api, { name: 'Escalated', match: { field: 'ticket.status', operator: 'equals', value: 'escalated' }, targets: [{ metric: 'first_reply', priority: 'medium', seconds: HOUR }] });
    const ticket = await createTicket(api);
    const answered = await reply(api, ticket.id);
    await eventsDelivered(app.orm, api.workspaceId);
    expect(await slaOf(api, ticket.id)).toBeNull();
    await setStatus(api, ticket.id, 'escalated');
    const sla = await slaWhen(api, ticket.id, (s) => s !== null);
    expect(sla.policyName).toBe('Escalated');
    expect(targetOf(sla, 'first_reply')).toMatchObject({ status: 'fulfilled', startedAt: ticket.createdAt, fulfilledAt: answered.body.data.createdAt, dueAt: after(ticket.createdAt, HOUR * 1000) });
    await setStatus(api, ticket.id, 'open');
    await slaWhen(api, ticket.id, (s) => s === null, 'the clocks gone when it no longer matches');
  });
});

describe('when policies change', () => {
  it('a new policy governs the unsolved tickets there are, from their creation; solved ones are left as they ended', async () => {
    const api = await workspace();
    const open = await createTicket(api);
    const solved = await createTicket(api);
    await setStatus(api, solved.id, 'solved');
    await eventsDelivered(app.orm, api.workspaceId);
    await createPolicy(api, standard);
    const sla = await slaWhen(api, open.id, (s) => s !== null, 'the pass to reach the open ticket');
    expect(targetOf(sla, 'first_reply')).toMatchObject({ startedAt: open.createdAt, dueAt: after(open.createdAt, 4 * HOUR * 1000) });
    expect(await slaOf(api, solved.id)).toBeNull();
  });

  it('tickets follow a change of targets and order, and lose their clocks with the last policy', async () => {
    const api = await workspace();
    const first = await createPolicy(api, { ...standard, name: 'First' });
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => s?.policyName === 'First');
    await api.patch(`/api/sla-policies/${first.id}`, { targets: [{ metric: 'first_reply', priority: 'medium', seconds: 2 * HOUR }] });
    const changed = await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').dueAt === after(ticket.createdAt, 2 * HOUR * 1000), 'the new target');
    expect(changed.targets.map((t: { metric: string }) => t.metric)).toEqual(['first_reply']);
    const second = await createPolicy(api, { ...standard, name: 'Second', position: 0 });
    await api.patch(`/api/sla-policies/${first.id}`, { position: 5 });
    expect((await slaWhen(api, ticket.id, (s) => s?.policyName === 'Second')).policyId).toBe(second.id);
    await api.delete(`/api/sla-policies/${second.id}`);
    await slaWhen(api, ticket.id, (s) => s?.policyName === 'First');
    await api.patch(`/api/sla-policies/${first.id}`, { isActive: false });
    await slaWhen(api, ticket.id, (s) => s === null, 'no policy');
  });

  it('a change of the calendar a policy counts moves the due times of its tickets', async () => {
    const api = await workspace();
    const allDays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, from: '00:00', to: '24:00' }));
    const calendar = (await api.post('/api/calendars', { name: 'Always', timeZone: 'UTC', hours: allDays })).body.calendar;
    await createPolicy(api, { name: 'Open time', calendarId: calendar.id, targets: [{ metric: 'first_reply', priority: 'medium', seconds: HOUR }] });
    const ticket = await createTicket(api);
    expect(targetOf(await slaWhen(api, ticket.id, (s) => s !== null), 'first_reply').dueAt).toBe(after(ticket.createdAt, HOUR * 1000));
    // Closed today and tomorrow: what is left of the hour counts from the day after.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await api.patch(`/api/calendars/${calendar.id}`, { holidays: [{ date: day(0), name: 'Closed' }, { date: day(1), name: 'Closed' }] });
    const moved = await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').dueAt !== after(ticket.createdAt, HOUR * 1000), 'the due time to move');
    const due = Date.parse(targetOf(moved, 'first_reply').dueAt);
    expect(due).toBeGreaterThan(Date.parse(`${day(2)}T00:00:00Z`));
    expect(due).toBeLessThanOrEqual(Date.parse(`${day(2)}T01:00:00Z`));
  });
});

describe('GET /api/sla/tickets', () => {
  it('lists running targets nearest due first, tells breached, warning and active apart, and filters by status, metric, time and count', async () => {
    const api = await workspace();
    await createPolicy(api, {
      name: 'Queue',
      targets: [
        { metric: 'first_reply', priority: 'urgent', seconds: 2 },
        { metric: 'first_reply', priority: 'high', seconds: 3 * HOUR, warnBeforeSeconds: 3 * HOUR - 1 },
        { metric: 'first_reply', priority: 'medium', seconds: 2 * HOUR },
        { metric: 'resolution', priority: 'medium', seconds: 5 * HOUR },
      ],
    });
    const breached = await createTicket(api, { subject: 'Breached' });
    await api.patch(`/api/v1/tickets/${breached.id}`, { priority: 'urgent' });
    const warned = await createTicket(api, { subject: 'Warned' });
    await api.patch(`/api/v1/tickets/${warned.id}`, { priority: 'high' });
    const counting = await createTicket(api, { subject: 'Counting' });
    const paused = await createTicket(api, { subject: 'Paused' });
    await setStatus(api, paused.id, 'pending');
    await reply(api, paused.id);
    await slaWhen(api, paused.id, (s) => targetOf(s, 'first_reply')?.status === 'fulfilled' && targetOf(s, 'resolution')?.status === 'paused');
    await slaWhen(api, counting.id, (s) => s !== null);
    await slaWhen(api, breached.id, (s) => targetOf(s, 'first_reply')?.status === 'breached', 'the urgent ticket past its two seconds');

    const all = await api.get('/api/sla/tickets');
    expectStatus(all, 200);
    expect(Object.keys(all.body)).toEqual(['data']);
    const lines = all.body.data.map((d: any) => `${d.subject} ${d.metric} ${d.targetStatus}`);
    expect(lines).toEqual(['Breached first_reply breached', 'Counting first_reply active', 'Warned first_reply warning', 'Counting resolution active']);
    expect(all.body.data[0]).toMatchObject({ ticketId: breached.id, subject: 'Breached', priority: 'urgent', status: 'open', metric: 'first_reply', targetStatus: 'breached' });
    expect(Date.parse(all.body.data[0].dueAt)).toBeLessThanOrEqual(Date.now());
    for (const d of all.body.data) expect(d.dueAt).toMatch(ISO_UTC);

    const only = async (query: string) => (await api.get(`/api/sla/tickets?${query}`)).body.data.map((d: any) => `${d.subject} ${d.metric}`);
    expect(await only('status=breached')).toEqual(['Breached first_reply']);
    expect(await only('status=warning')).toEqual(['Warned first_reply']);
    expect(await only('status=active')).toEqual(['Counting first_reply', 'Warned first_reply', 'Counting resolution']);
    expect(await only('metric=resolution')).toEqual(['Counting resolution']);
    expect(await only('limit=2')).toEqual(['Breached first_reply', 'Counting first_reply']);
    expect(await only(`before=${encodeURIComponent(after(counting.createdAt, 2 * HOUR * 1000 + 1))}`)).toEqual(['Breached first_reply', 'Counting first_reply']);
    expect((await getTicket(api, warned.id)).priority).toBe('high');
  });

  it('refuses bad query parameters with a 400 naming them', async () => {
    const api = await workspace();
    expectValidation(await api.get('/api/sla/tickets?status=late'), 'status', /breached, warning, active/);
    expectValidation(await api.get('/api/sla/tickets?metric=response'), 'metric', /first_reply/);
    expectValidation(await api.get('/api/sla/tickets?limit=0'), 'limit', /1 to 200/);
    expectValidation(await api.get('/api/sla/tickets?before=tomorrow'), 'before', /ISO 8601/);
    expect((await api.get('/api/sla/tickets')).body).toEqual({ data: [] });
  });

  it('shows only the workspace\'s own tickets', async () => {
    const api = await workspace();
    await createPolicy(api, standard);
    const ticket = await createTicket(api);
    await eventually(async () => ((await api.get('/api/sla/tickets')).body.data.length === 2 ? true : undefined), 10_000, 'the ticket in the queue');
    const other = await workspace();
    expect((await other.get('/api/sla/tickets')).body.data.map((d: any) => d.ticketId)).not.toContain(ticket.id);
  });
});
