import { describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import { TicketSla } from '../../src/sla/entity.ts';
import { slaClocksId } from '../../temporal/client.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { activeWorkflow, createTicket, expectStatus, finishedExecutions, getTicket, setStatus } from '../helpers/api.ts';
import { actionNode, conditionNode } from '../helpers/graphs.ts';
import { eventually } from '../helpers/poll.ts';
import { createPolicy, slaWhen, targetOf } from '../helpers/sla.ts';
import type { Client } from '../helpers/app.ts';

// docs/sla.md, "Acting on time": the timers of a ticket are a durable Temporal workflow; at a
// target's warning and due instants sla_warning and sla_breached events are written, once, and
// the workflows with those triggers start on them within seconds. Targets of a few seconds, on
// the real dev server.

const app = useEngineApp();

/** How late a run may start after its instant (the promise: within 5 seconds). */
const WITHIN_MS = 5_000;

/** A workspace with two active workflows: sla_warning tags `warned-<metric>`, sla_breached (for first_reply) escalates and tags `breached-<metric>`. */
async function acting(): Promise<{ api: Client; workspaceId: string; onWarning: string; onBreach: string }> {
  const { ws, api } = await engineWorkspace(app, [{ userId: 'agent-1' }]);
  const onWarning = await activeWorkflow(api, 'sla_warning', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'warned-{{sla.metric}}' })], 'Warn');
  const onBreach = await activeWorkflow(
    api,
    'sla_breached',
    'start > first >true escalate, first >true tag, start > any',
    [
      conditionNode('first', { field: 'sla.metric', operator: 'equals', value: 'first_reply' }),
      actionNode('escalate', { actionType: 'set_status', status: 'escalated' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'breached-{{sla.metric}}' }),
      actionNode('any', { actionType: 'add_tag', tag: 'due-{{sla.policyName}}' }),
    ],
    'Escalate on breach',
  );
  return { api, workspaceId: ws.workspaceId, onWarning, onBreach };
}

/** The status of a ticket's timers workflow in Temporal, once it is `status`. */
const timersWorkflow = (ticketId: string, status: string) =>
  eventually(async () => {
    const described = await app.engine.client.workflow.getHandle(slaClocksId(ticketId)).describe();
    return described.status.name === status ? described : undefined;
  }, 10_000, `the timers workflow ${status}`);

/** The sla_* events of a ticket, oldest first. */
const slaEvents = (ticketId: string) => app.orm.em.fork().find(OutboxEvent, { ticketId, type: { $in: ['sla_warning', 'sla_breached'] } }, { orderBy: { createdAt: 'asc' } });

/** The ticket's sla_* events once there are `count`. */
const eventsOnce = (ticketId: string, count: number, timeoutMs = 20_000) =>
  eventually(async () => {
    const events = await slaEvents(ticketId);
    return events.length >= count ? events : undefined;
  }, timeoutMs, `${count} sla event(s) of ticket ${ticketId}`);

/** Once the relay has handed the ticket's current timer instants to Temporal. */
const armed = (ticketId: string) =>
  eventually(async () => {
    const row = await app.orm.em.fork().findOne(TicketSla, { ticket: ticketId });
    return row && row.revision > 0 && row.revision === row.signalledRevision ? row : undefined;
  }, 10_000, 'the timers armed');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sla_warning and sla_breached', () => {
  it('start their workflows within 5 seconds of the warning and the due instant, once each, with the ticket and sla in the context', async () => {
    const { api, onWarning, onBreach } = await acting();
    const policy = await createPolicy(api, { name: 'Fast', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 4, warnBeforeSeconds: 2 }] });
    const ticket = await createTicket(api);
    const due = Date.parse(ticket.createdAt) + 4_000;
    const warnAt = due - 2_000;

    const [warned] = await finishedExecutions(api, onWarning);
    expect(warned).toMatchObject({ status: 'completed', triggeredBy: 'sla_warning', ticketId: ticket.id });
    expect(Date.parse(warned.startedAt) - warnAt).toBeGreaterThanOrEqual(0);
    expect(Date.parse(warned.startedAt) - warnAt).toBeLessThan(WITHIN_MS);
    const [breached] = await finishedExecutions(api, onBreach);
    expect(breached).toMatchObject({ status: 'completed', triggeredBy: 'sla_breached', ticketId: ticket.id });
    expect(Date.parse(breached.startedAt) - due).toBeGreaterThanOrEqual(0);
    expect(Date.parse(breached.startedAt) - due).toBeLessThan(WITHIN_MS);

    const after = await getTicket(api, ticket.id);
    expect(after.status).toBe('escalated');
    expect([...after.tags].sort()).toEqual(['breached-first_reply', 'due-Fast', 'warned-first_reply']);
    const events = await slaEvents(ticket.id);
    expect(events.map((e) => e.type)).toEqual(['sla_warning', 'sla_breached']);
    expect(events[1].payload.sla).toEqual({ policyId: policy.id, policyName: 'Fast', metric: 'first_reply', dueAt: new Date(due).toISOString() });
    expect(events[1].payload.ticket).toMatchObject({ id: ticket.id, subject: ticket.subject });
    // The target stays breached when met later; nothing fires again.
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/replies`, { authorId: 'agent-1', body: 'Sorry for the wait.' }), 201);
    expect(targetOf(await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').fulfilledAt !== null), 'first_reply').status).toBe('breached');
    await sleep(1_500);
    expect((await slaEvents(ticket.id)).length).toBe(2);
    expect(await finishedExecutions(api, onBreach)).toHaveLength(1);
    // Nothing left to wait for: the timers' workflow has ended.
    expect((await timersWorkflow(ticket.id, 'COMPLETED')).type).toBe('slaClocks');
  });

  it('a reply in time: no breach, the timers end', async () => {
    const { api, onBreach } = await acting();
    await createPolicy(api, { name: 'Met', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 3 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    expectStatus(await api.post(`/api/v1/tickets/${ticket.id}/replies`, { authorId: 'agent-1', body: 'Here.' }), 201);
    await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply').status === 'fulfilled');
    await timersWorkflow(ticket.id, 'COMPLETED');
    await sleep(3_000);
    expect(await slaEvents(ticket.id)).toEqual([]);
    expect(await (await api.get(`/api/workflows/${onBreach}/executions`)).body.executions).toEqual([]);
  });

  it('pending pauses resolution and open resumes it where it stood; the breach comes that much later', async () => {
    const { api } = await acting();
    await createPolicy(api, { name: 'Pausing', targets: [{ metric: 'resolution', priority: 'medium', seconds: 4 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    const pending = await setStatus(api, ticket.id, 'pending');
    await sleep(5_000); // past its four seconds, but it stood still
    expect(await slaEvents(ticket.id)).toEqual([]);
    const open = await setStatus(api, ticket.id, 'open');
    const [breach] = await eventsOnce(ticket.id, 1);
    const due = Date.parse(ticket.createdAt) + 4_000 + (Date.parse(open.updatedAt) - Date.parse(pending.updatedAt));
    expect(breach.payload.sla).toMatchObject({ metric: 'resolution', dueAt: new Date(due).toISOString() });
    expect(breach.createdAt.getTime() - due).toBeGreaterThanOrEqual(0);
    expect(breach.createdAt.getTime() - due).toBeLessThan(WITHIN_MS);
  });

  it('a reopened ticket resumes its resolution clock instead of restarting it', async () => {
    const { api } = await acting();
    await createPolicy(api, { name: 'Reopen', targets: [{ metric: 'resolution', priority: 'medium', seconds: 4 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    const solved = await setStatus(api, ticket.id, 'solved');
    await sleep(5_000);
    expect(await slaEvents(ticket.id)).toEqual([]);
    const reopened = await setStatus(api, ticket.id, 'open');
    const [breach] = await eventsOnce(ticket.id, 1);
    const due = Date.parse(reopened.updatedAt) + (4_000 - (Date.parse(solved.updatedAt) - Date.parse(ticket.createdAt)));
    expect((breach.payload.sla as { dueAt: string }).dueAt).toBe(new Date(due).toISOString());
    expect(breach.createdAt.getTime() - due).toBeLessThan(WITHIN_MS);
  });

  it('a priority change to urgent breaches at once when the ticket is past its urgent target', async () => {
    const { api, onBreach } = await acting();
    await createPolicy(api, { name: 'Urgent', targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 1 }, { metric: 'first_reply', priority: 'medium', seconds: 3_600 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    await sleep(1_500);
    expect(await slaEvents(ticket.id)).toEqual([]);
    const made = (await api.patch(`/api/v1/tickets/${ticket.id}`, { priority: 'urgent' })).body.data;
    const [breach] = await eventsOnce(ticket.id, 1);
    expect(breach.type).toBe('sla_breached');
    expect((breach.payload.sla as { dueAt: string }).dueAt).toBe(made.updatedAt);
    expect(breach.createdAt.getTime() - Date.parse(made.updatedAt)).toBeLessThan(WITHIN_MS);
    const [run] = await finishedExecutions(api, onBreach);
    expect(run.status).toBe('completed');
  });

  it('a policy change moves the timer: the new, earlier instant fires, the old one never does', async () => {
    const { api } = await acting();
    const policy = await createPolicy(api, { name: 'Moving', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 60 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    const changed = (await api.patch(`/api/sla-policies/${policy.id}`, { targets: [{ metric: 'first_reply', priority: 'medium', seconds: 5 }] })).body.policy;
    const due = Math.max(Date.parse(ticket.createdAt) + 5_000, Date.parse(changed.updatedAt));
    const [breach] = await eventsOnce(ticket.id, 1);
    expect(Date.parse((breach.payload.sla as { dueAt: string }).dueAt)).toBe(due);
    expect(breach.createdAt.getTime() - due).toBeLessThan(WITHIN_MS);
    // Moved later instead: a second ticket's timer waits for the new instant.
    const later = await createTicket(api);
    await armed(later.id);
    await api.patch(`/api/sla-policies/${policy.id}`, { targets: [{ metric: 'first_reply', priority: 'medium', seconds: 3_600 }] });
    await slaWhen(api, later.id, (s) => targetOf(s, 'first_reply').dueAt === new Date(Date.parse(later.createdAt) + 3_600_000).toISOString());
    await sleep(6_000);
    expect(await slaEvents(later.id)).toEqual([]);
    expect(await slaEvents(ticket.id)).toHaveLength(1);
  });

  it('a worker stopped between arming and firing: the instant still fires, once, when a worker is back', async () => {
    const { api } = await acting();
    await createPolicy(api, { name: 'Restart', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 4 }] });
    const ticket = await createTicket(api);
    await armed(ticket.id);
    await app.worker!.stop();
    try {
      await sleep(5_000); // the instant passes while no worker runs
      expect(await slaEvents(ticket.id)).toEqual([]);
    } finally {
      await app.startWorker();
    }
    const [breach] = await eventsOnce(ticket.id, 1);
    expect(breach.type).toBe('sla_breached');
    await sleep(2_000);
    expect(await slaEvents(ticket.id)).toHaveLength(1);
  });
});
