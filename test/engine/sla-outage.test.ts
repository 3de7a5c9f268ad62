import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import { TicketSla } from '../../src/sla/entity.ts';
import { startOwnTemporal, type OwnTemporal } from '../helpers/own-temporal.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { createTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { createPolicy } from '../helpers/sla.ts';

// docs/sla.md, "Timers": with Temporal away, instants come late, never lost and never twice.
// This file runs a Temporal server of its own (its state survives the restart) and stops it.

let temporal: OwnTemporal;
beforeAll(async () => {
  temporal = await startOwnTemporal();
});
afterAll(() => temporal?.destroy());
const app = useEngineApp(() => ({ temporalAddress: temporal.address }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const breaches = (ticketId: string) => app.orm.em.fork().find(OutboxEvent, { ticketId, type: 'sla_breached' });
const armed = (ticketId: string) =>
  eventually(async () => {
    const row = await app.orm.em.fork().findOne(TicketSla, { ticket: ticketId });
    return row && row.revision > 0 && row.revision === row.signalledRevision ? row : undefined;
  }, 20_000, 'the timers armed');

describe('SLA timers while Temporal is away', () => {
  it('a timer armed before the outage and one whose ticket came during it both fire once Temporal is back, once each', async () => {
    const { api } = await engineWorkspace(app);
    await createPolicy(api, { name: 'Outage', targets: [{ metric: 'first_reply', priority: 'medium', seconds: 3 }] });
    const before = await createTicket(api, { subject: 'Armed before' });
    await armed(before.id);

    await temporal.stop();
    const during = await createTicket(api, { subject: 'Came during' });
    // The relay folds its events and cannot hand its instants over: they stay pending in PostgreSQL.
    const behind = await eventually(async () => {
      const row = await app.orm.em.fork().findOne(TicketSla, { ticket: during.id });
      return row && row.signalAttempts > 0 ? row : undefined;
    }, 30_000, 'a failed signal noted');
    expect(behind.signalledRevision).toBeLessThan(behind.revision);
    await sleep(4_000); // both instants pass while Temporal is away
    expect(await breaches(before.id)).toEqual([]);
    expect(await breaches(during.id)).toEqual([]);

    await temporal.start();
    await eventually(async () => ((await breaches(before.id)).length === 1 && (await breaches(during.id)).length === 1 ? true : undefined), 60_000, 'both breaches written');
    await armed(during.id);
    await sleep(3_000);
    expect((await breaches(before.id)).length).toBe(1);
    expect((await breaches(during.id)).length).toBe(1);
  });
});
