import { describe, expect, it } from 'vitest';
import { newWorkspace, useTestApp, type Client } from '../helpers/app.ts';
import { expectValidation } from '../helpers/expect.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { createTicket, expectStatus, setStatus } from '../helpers/api.ts';
import { sql } from '../../src/common/sql.ts';
import { createPolicy, eventsDelivered, HOUR, slaOf, useClockRelay } from '../helpers/sla.ts';

// docs/sla.md, "Trying a policy": POST /api/sla-policies/backtest replays what Deskflow recorded
// through the same clock rules as the live clocks, and writes nothing.

const app = useTestApp();
const relay = useClockRelay(app);

async function workspace(): Promise<Client & { workspaceId: string }> {
  const { ws, api } = await newWorkspace(app, [{ userId: 'agent-1' }]);
  relay.workspaceIds.add(ws.workspaceId);
  return Object.assign(api, { workspaceId: ws.workspaceId });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reply = (api: Client, id: string) => api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'On it.' });
const backtest = (api: Client, body: unknown) => api.post('/api/sla-policies/backtest', body);

const policy = {
  name: 'Tried',
  match: { field: 'ticket.subject', operator: 'not_contains', value: 'newsletter' },
  targets: [
    { metric: 'first_reply', priority: 'medium', seconds: 1 },
    { metric: 'resolution', priority: 'medium', seconds: 2 * HOUR },
    { metric: 'first_reply', priority: 'urgent', seconds: 60 },
  ],
};

describe('POST /api/sla-policies/backtest', () => {
  it('counts, per target, the tickets of those days that would have met, breached or still run it', async () => {
    const api = await workspace();
    const quick = await createTicket(api, { subject: 'Answered at once' });
    await reply(api, quick.id);
    await setStatus(api, quick.id, 'solved');
    const slow = await createTicket(api, { subject: 'Answered late' });
    const waiting = await createTicket(api, { subject: 'Waiting on the customer' });
    await setStatus(api, waiting.id, 'pending');
    await createTicket(api, { subject: 'Our newsletter' });
    const old = await createTicket(api, { subject: 'Three days old' });
    await sql(app.orm.em.fork(), `update "tickets" set "created_at" = now() - interval '3 days' where "id" = $1`, [old.id]);
    await sleep(1_100);
    await reply(api, slow.id);

    const res = await backtest(api, { policy, days: 1 });
    expectStatus(res, 200);
    expect(res.body).toEqual({
      tickets: 3,
      targets: [
        { metric: 'first_reply', priority: 'medium', met: 1, breached: 2, running: 0, attainment: 0.3333 },
        { metric: 'first_reply', priority: 'urgent', met: 0, breached: 0, running: 0, attainment: null },
        { metric: 'resolution', priority: 'medium', met: 1, breached: 0, running: 2, attainment: 1 },
      ],
    });
    // The three-day-old ticket counts in a window of four days.
    expect((await backtest(api, { policy, days: 4 })).body.tickets).toBe(4);
    // Nothing is written: no clocks for the workspace, which has no policy.
    expect(await slaOf(api, quick.id)).toBeNull();
  });

  it('replays through the same rules as the live clocks: on the same tickets it says what GET …/sla says', async () => {
    const api = await workspace();
    const live = { name: 'Live', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 1 }, { metric: 'next_reply', priority: 'medium', seconds: HOUR }, { metric: 'resolution', priority: 'medium', seconds: HOUR }] };
    await createPolicy(api, live);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createTicket(api, { subject: `Ticket ${i}` })).id);
    await reply(api, ids[0]);
    await api.post(`/api/v1/tickets/${ids[0]}/messages`, { body: 'And?', senderEmail: 'customer@example.com' });
    await setStatus(api, ids[1], 'pending');
    await setStatus(api, ids[2], 'solved');
    await sleep(1_100);
    await reply(api, ids[3]);
    await eventsDelivered(app.orm, api.workspaceId);

    const tried = (await backtest(api, { policy: live, days: 1 })).body;
    const counted = new Map<string, { met: number; breached: number; running: number }>();
    for (const id of ids) {
      for (const t of (await slaOf(api, id)).targets) {
        const c = counted.get(t.metric) ?? { met: 0, breached: 0, running: 0 };
        if (t.status === 'fulfilled') c.met += 1;
        else if (t.status === 'breached') c.breached += 1;
        else c.running += 1;
        counted.set(t.metric, c);
      }
    }
    expect(tried.tickets).toBe(4);
    for (const t of tried.targets) expect({ metric: t.metric, met: t.met, breached: t.breached, running: t.running }).toEqual({ metric: t.metric, ...(counted.get(t.metric) ?? { met: 0, breached: 0, running: 0 }) });
    // Not a vacuous agreement: both outcomes occur (the reply to the first ticket in time, the last one's late).
    const first = tried.targets.find((t: { metric: string }) => t.metric === 'first_reply');
    expect(first.met).toBeGreaterThanOrEqual(1);
    expect(first.breached).toBeGreaterThanOrEqual(1);
  });

  it('refuses a bad policy or window with a 400 naming the field', async () => {
    const api = await workspace();
    expectValidation(await backtest(api, { policy, days: 0 }), 'days', /1 to 90/);
    expectValidation(await backtest(api, { policy, days: 91 }), 'days', /1 to 90/);
    expectValidation(await backtest(api, { policy }), 'days', /integer/);
    expectValidation(await backtest(api, { policy: { ...policy, targets: [{ metric: 'resolution', priority: 'low', seconds: 60, warnBeforeSeconds: 90 }] }, days: 7 }), 'policy.targets[0].warnBeforeSeconds', /less than seconds/);
    expectValidation(await backtest(api, { policy: { ...policy, match: { field: 'ticket.tags', operator: 'oops' } }, days: 7 }), 'policy.match.operator', /unknown operator/);
    expectValidation(await backtest(api, { policy: { ...policy, calendarId: UNKNOWN_ID }, days: 7 }), 'policy.calendarId', /no calendar/);
    expectValidation(await backtest(api, { policy, days: 7, since: 'yesterday' }), 'since', /Unknown field/);
  });
});
