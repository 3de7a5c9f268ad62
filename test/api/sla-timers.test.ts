import { describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import { SlaTarget, TicketSla } from '../../src/sla/entity.ts';
import { fireDue, slaEventId } from '../../src/sla/timers.ts';
import { newWorkspace, useTestApp, type Client } from '../helpers/app.ts';
import { createTicket, setStatus } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { after, createPolicy, HOUR, idleEngine, slaWhen, targetOf, useClockRelay } from '../helpers/sla.ts';

// docs/sla.md, "Timers", on PostgreSQL without Temporal: what the relay hands a ticket's timers
// (and hands again while Temporal is away), and what the timers' activity writes when an instant
// comes (src/sla/timers.ts, fireDue): each event once, nothing for an instant that no longer
// stands, and the counts GET /metrics reads. The real timers run in test/engine/sla-timers.test.ts.

const app = useTestApp({ config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' } });
const relay = useClockRelay(app);

async function workspace(): Promise<Client & { workspaceId: string }> {
  const { ws, api } = await newWorkspace(app, [{ userId: 'agent-1' }]);
  relay.workspaceIds.add(ws.workspaceId);
  return Object.assign(api, { workspaceId: ws.workspaceId });
}

const signalsOf = (ticketId: string) => idleEngine.signalled.filter((u) => u.ticketId === ticketId);
const eventsOf = (ticketId: string) => app.orm.em.fork().find(OutboxEvent, { ticketId, type: { $in: ['sla_warning', 'sla_breached'] } }, { orderBy: { createdAt: 'asc' } });
const targetRow = (ticketId: string, metric: string) => app.orm.em.fork().findOneOrFail(SlaTarget, { ticket: ticketId, metric: metric as 'first_reply' });

async function metrics(): Promise<string> {
  return (await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).text();
}

describe('what the relay hands the timers', () => {
  it('each ticket\'s fire instants, handed again until the engine acknowledges them', async () => {
    const api = await workspace();
    await createPolicy(api, { name: 'Timers', targets: [{ metric: 'first_reply', priority: 'medium', seconds: HOUR, warnBeforeSeconds: 600 }, { metric: 'resolution', priority: 'medium', seconds: 8 * HOUR }] });
    idleEngine.away = true;
    let ticket: any;
    try {
      ticket = await createTicket(api);
      const behind = await eventually(async () => {
        const row = await app.orm.em.fork().findOne(TicketSla, { ticket: ticket.id });
        return row && row.signalAttempts > 0 ? row : undefined;
      }, 10_000, 'a failed attempt noted');
      expect(behind.signalledRevision).toBeLessThan(behind.revision);
      expect(behind.lastSignalError).toMatch(/UNAVAILABLE/);
      expect(signalsOf(ticket.id)).toEqual([]);
    } finally {
      idleEngine.away = false;
    }
    const [update] = await eventually(async () => (signalsOf(ticket.id).length > 0 ? signalsOf(ticket.id) : undefined), 10_000, 'the instants handed over');
    expect(update).toMatchObject({ workspaceId: api.workspaceId, revision: 1 });
    expect(update.instants).toEqual([
      { metric: 'first_reply', cycle: 0, kind: 'warning', at: after(ticket.createdAt, 50 * 60_000) },
      { metric: 'first_reply', cycle: 0, kind: 'breach', at: after(ticket.createdAt, HOUR * 1000) },
      { metric: 'resolution', cycle: 0, kind: 'breach', at: after(ticket.createdAt, 8 * HOUR * 1000) },
    ]);
    const row = await eventually(async () => {
      const r = await app.orm.em.fork().findOneOrFail(TicketSla, { ticket: ticket.id });
      return r.signalledRevision === r.revision ? r : undefined;
    }, 10_000, 'the revision acknowledged');
    expect(row.lastSignalError).toBeNull();

    // A change that moves no instant hands nothing over; one that does, the new ones, in a new revision.
    await setStatus(api, ticket.id, 'escalated');
    await api.post(`/api/v1/tickets/${ticket.id}/replies`, { authorId: 'agent-1', body: 'On it.' });
    const met = await eventually(async () => signalsOf(ticket.id).find((u) => u.revision === 2), 10_000, 'revision 2');
    expect(met.instants).toEqual([{ metric: 'resolution', cycle: 0, kind: 'breach', at: after(ticket.createdAt, 8 * HOUR * 1000) }]);
    await setStatus(api, ticket.id, 'solved');
    expect((await eventually(async () => signalsOf(ticket.id).find((u) => u.revision === 3), 10_000, 'revision 3')).instants).toEqual([]);
    expect(signalsOf(ticket.id).map((u) => u.revision)).toEqual([1, 2, 3]);
  });
});

describe('the timers\' activity (fireDue)', () => {
  /** A governed ticket whose first_reply (two seconds) is past due. */
  async function pastDue(api: Client) {
    await createPolicy(api, { name: 'Two seconds', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 2, warnBeforeSeconds: 1 }] });
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply')?.status === 'active');
    await slaWhen(api, ticket.id, (s) => targetOf(s, 'first_reply')?.status === 'breached', 'past due');
    const due = after(ticket.createdAt, 2_000);
    return { ticket, breach: { metric: 'first_reply' as const, cycle: 0, kind: 'breach' as const, at: due }, warning: { metric: 'first_reply' as const, cycle: 0, kind: 'warning' as const, at: after(ticket.createdAt, 1_000) } };
  }

  it('writes sla_breached once, however often and however concurrently the instant is acted on, and counts it once', async () => {
    const api = await workspace();
    const { ticket, breach, warning } = await pastDue(api);
    const before = await metrics();
    const answers = await Promise.all([1, 2, 3].map(() => fireDue(app.orm, { ticketId: ticket.id, instants: [warning, breach] })));
    expect(answers.flat()).toEqual([breach]); // the warning of a target already due is not sent
    expect(await fireDue(app.orm, { ticketId: ticket.id, instants: [breach] })).toEqual([]);
    const events = await eventsOf(ticket.id);
    expect(events.map((e) => [e.id, e.type])).toEqual([[slaEventId(ticket.id, breach), 'sla_breached']]);
    expect(events[0].payload).toMatchObject({ ticket: { id: ticket.id, status: 'open' }, sla: { policyName: 'Two seconds', metric: 'first_reply', dueAt: breach.at } });
    const row = await targetRow(ticket.id, 'first_reply');
    expect(row).toMatchObject({ status: 'breached', breachedAt: new Date(breach.at) });
    expect(row.breachSentAt).not.toBeNull();
    const count = (text: string) => Number(/deskflow_sla_breaches_total\{metric="first_reply",priority="medium"\} (\d+)/.exec(text)?.[1] ?? 0);
    expect(count(await metrics()) - count(before)).toBe(1);
    // The relay's next fold keeps what was sent.
    await setStatus(api, ticket.id, 'escalated');
    await eventually(async () => ((await targetRow(ticket.id, 'first_reply')).updatedAt > row.updatedAt ? true : undefined), 10_000, 'a new fold');
    expect((await targetRow(ticket.id, 'first_reply')).breachSentAt).toEqual(row.breachSentAt);
  });

  it('writes nothing for an instant that no longer stands: met, moved later, another cycle, or a ticket no policy governs', async () => {
    const api = await workspace();
    const policy = await createPolicy(api, { name: 'Later', targets: [{ metric: 'first_reply', priority: 'medium', seconds: HOUR }] });
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => s !== null);
    const soon = { metric: 'first_reply' as const, cycle: 0, kind: 'breach' as const, at: after(ticket.createdAt, 1_000) };
    expect(await fireDue(app.orm, { ticketId: ticket.id, instants: [soon, { ...soon, cycle: 3 }, { ...soon, metric: 'resolution' as const }] })).toEqual([]);
    await api.patch(`/api/sla-policies/${policy.id}`, { isActive: false });
    await slaWhen(api, ticket.id, (s) => s === null);
    expect(await fireDue(app.orm, { ticketId: ticket.id, instants: [{ ...soon, at: after(ticket.createdAt, HOUR * 1000) }] })).toEqual([]);
    expect(await eventsOf(ticket.id)).toEqual([]);
  });

  it('GET /metrics shows the clocks running, by metric', async () => {
    const api = await workspace();
    await createPolicy(api, { name: 'Running', targets: [{ metric: 'resolution', priority: 'medium', seconds: HOUR }] });
    const running = (text: string) => Number(/deskflow_sla_running_clocks\{metric="resolution"\} (\d+)/.exec(text)?.[1] ?? -1);
    const before = running(await metrics());
    expect(before).toBeGreaterThanOrEqual(0);
    const ticket = await createTicket(api);
    await slaWhen(api, ticket.id, (s) => s !== null);
    expect(running(await metrics())).toBe(before + 1);
    await setStatus(api, ticket.id, 'pending');
    await slaWhen(api, ticket.id, (s) => targetOf(s, 'resolution').status === 'paused');
    expect(running(await metrics())).toBe(before);
  });
});
