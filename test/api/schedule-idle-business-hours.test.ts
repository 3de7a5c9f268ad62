import { describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import { ExecutionDispatcher } from '../../src/executions/dispatcher.ts';
import { runTickBatch } from '../../src/triggers/ticks.ts';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectStatus, newTicket } from '../helpers/api.ts';

// docs/automations.md, "Schedules": ticketFilter.idleForSeconds with calendarId counts the
// calendar's open time since a ticket's last update.

const app = useTestApp();
const { api } = useWorkspace(app);

describe('a tick whose filter counts idle time in open hours', () => {
  it('selects the tickets with at least that much open time since their last update', async () => {
    const hours = ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, from: '09:00', to: '17:00' }));
    const calendar = (await api.post('/api/calendars', { name: 'Office', timeZone: 'Europe/Berlin', hours })).body.calendar;
    const ticket = async (subject: string, updatedAt: string) => {
      const id = (await api.post('/api/v1/tickets', newTicket({ subject }))).body.data.id as string;
      await app.orm.em.fork().getConnection().execute('update tickets set updated_at = ? where id = ?', [new Date(updatedAt), id]);
      return id;
    };
    // Tuesday 10 March 2026 16:50 in Berlin; 16 open hours back is Friday 6 March 16:50.
    const now = new Date('2026-03-10T16:50:00+01:00');
    const idle = await ticket('updated Friday 16:49', '2026-03-06T16:49:00+01:00');
    const exactly = await ticket('updated Friday 16:50', '2026-03-06T16:50:00+01:00');
    const weekend = await ticket('updated Saturday', '2026-03-07T12:00:00+01:00'); // only 15h50 of open time since
    await ticket('updated Friday 16:51', '2026-03-06T16:51:00+01:00');
    await ticket('updated this morning', '2026-03-10T08:00:00+01:00');

    const created = await api.post('/api/workflows', {
      name: 'Chase idle tickets',
      triggerType: 'scheduled',
      workflowJson: {
        nodes: [
          { id: 'tick', type: 'trigger', data: { triggerType: 'scheduled', cron: '0 0 1 1 *', ticketFilter: { status: ['open'], idleForSeconds: 16 * 3600, calendarId: calendar.id } } },
          { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'idle' } },
        ],
        edges: [{ source: 'tick', target: 'tag' }],
      },
    });
    expectStatus(created, 201);
    const workflowId = created.body.workflow.id;
    expectStatus(await api.patch(`/api/workflows/${workflowId}`, { isActive: true }), 200);

    const em = app.orm.em.fork();
    const batch = await runTickBatch(em, new ExecutionDispatcher(em), { workflowId, tickId: 'tick-1', cursor: null, now });
    expect(batch).toMatchObject({ started: 2, done: true });
    const chosen = (await app.orm.em.fork().find(Execution, { workflow: workflowId })).map((e) => e.ticketId);
    expect(chosen.sort()).toEqual([idle, exactly].sort());
    expect(chosen).not.toContain(weekend);

    // In calendar time the same filter takes every ticket older than 16 hours.
    const calendarTime = {
      nodes: [
        { id: 'tick', type: 'trigger', data: { triggerType: 'scheduled', cron: '0 0 1 1 *', ticketFilter: { status: ['open'], idleForSeconds: 16 * 3600 } } },
        { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'idle' } },
      ],
      edges: [{ source: 'tick', target: 'tag' }],
    };
    expectStatus(await api.patch(`/api/workflows/${workflowId}`, { workflowJson: calendarTime }), 200);
    const again = await runTickBatch(em, new ExecutionDispatcher(em), { workflowId, tickId: 'tick-2', cursor: null, now });
    expect(again.started).toBe(4);
  });
});
