import { describe, expect, it } from 'vitest';
import { ScheduleNotFoundError } from '@temporalio/client';
import { reconcileSchedules, scheduleIdFor, TemporalSchedules } from '../../temporal/schedules.ts';
import { createLogger } from '../../src/logger.ts';
import { Workflow } from '../../src/workflows/entity.ts';
import { ExecutionDispatcher } from '../../src/executions/dispatcher.ts';
import { Execution } from '../../src/executions/entity.ts';
import { runTickBatch, type TickBatch } from '../../src/triggers/ticks.ts';
import { engineWorkspace, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { activeWorkflow, newTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';

const app = useEngineApp();

const scheduledGraph = (trigger: Record<string, unknown>, actions: unknown[] = [], edges: unknown[] = []) => ({
  nodes: [{ id: 'tick', type: 'trigger', data: { triggerType: 'scheduled', ...trigger } }, ...actions],
  edges,
});

async function executionsOf(api: Client, workflowId: string) {
  return (await api.get(`/api/workflows/${workflowId}/executions?limit=200`)).body.executions as Array<{ ticketId: string | null; status: string; triggeredBy: string }>;
}

function describeSchedule(workflowId: string) {
  return app.engine.client.schedule.getHandle(scheduleIdFor(workflowId)).describe();
}

describe('scheduled trigger', () => {
  it('runs once per matching ticket per tick, and stops when deactivated', async () => {
    const { api } = await engineWorkspace(app);
    const pending = (await api.post('/api/v1/tickets', newTicket({ subject: 'pending one' }))).body.data;
    await api.patch(`/api/v1/tickets/${pending.id}`, { status: 'pending' });
    const other = (await api.post('/api/v1/tickets', newTicket({ subject: 'open one' }))).body.data;
    const graph = scheduledGraph(
      { intervalSeconds: 1, ticketFilter: { status: ['pending'] } },
      [{ id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'swept' } }],
      [{ source: 'tick', target: 'tag' }],
    );
    const workflowId = await activeWorkflow(api, 'scheduled', graph.edges, graph.nodes, 'Sweep pending');

    const runs = await eventually(async () => {
      const list = await executionsOf(api, workflowId);
      return list.filter((e) => e.status === 'completed').length >= 2 ? list : undefined;
    }, 30_000, 'two ticks');
    expect(runs.every((e) => e.ticketId === pending.id && e.triggeredBy === 'scheduled')).toBe(true);
    expect((await api.get(`/api/v1/tickets/${pending.id}`)).body.data.tags).toEqual(['swept']);
    expect((await api.get(`/api/v1/tickets/${other.id}`)).body.data.tags).toEqual([]);

    expect((await describeSchedule(workflowId)).state.paused).toBe(false);
    await api.patch(`/api/workflows/${workflowId}`, { isActive: false });
    expect((await describeSchedule(workflowId)).state.paused).toBe(true);
    // Let a tick that was already under way finish, then no new executions appear.
    await new Promise((r) => setTimeout(r, 1500));
    const settled = (await executionsOf(api, workflowId)).length;
    await new Promise((r) => setTimeout(r, 2500));
    expect((await executionsOf(api, workflowId)).length).toBe(settled);
  });

  it('starts one execution without a ticket per tick when there is no ticket filter', async () => {
    const graph = scheduledGraph({ intervalSeconds: 1 });
    const { api, workflowId } = await workspaceWithWorkflow(app, 'scheduled', graph.edges, graph.nodes, 'Heartbeat');
    const runs = await eventually(async () => {
      const list = await executionsOf(api, workflowId);
      return list.some((e) => e.status === 'completed') ? list : undefined;
    }, 20_000, 'a tick');
    expect(runs[0]).toMatchObject({ ticketId: null, triggeredBy: 'scheduled' });
    await api.delete(`/api/workflows/${workflowId}`);
  });

  it('skips ticks while an execution of an earlier tick is still running', async () => {
    const graph = scheduledGraph({ intervalSeconds: 1 }, [{ id: 'wait', type: 'action', data: { actionType: 'delay', seconds: 3 } }], [{ source: 'tick', target: 'wait' }]);
    const { api, workflowId } = await workspaceWithWorkflow(app, 'scheduled', graph.edges, graph.nodes, 'Slow tick');
    type Run = { status: string; startedAt: string; completedAt: string | null };
    const runs = (await eventually(async () => {
      const list = (await api.get(`/api/workflows/${workflowId}/executions`)).body.executions as Run[];
      return list.filter((e) => e.status === 'completed').length >= 2 ? list : undefined;
    }, 30_000, 'two slow ticks')) as Run[];
    await api.patch(`/api/workflows/${workflowId}`, { isActive: false });
    // Oldest first: each tick's run started only after the one before it had finished.
    const finished = runs.filter((e) => e.completedAt !== null).reverse();
    for (let i = 1; i < finished.length; i++) {
      expect(Date.parse(finished[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(finished[i - 1].completedAt!));
    }
    expect(runs.filter((e) => e.status === 'running' || e.status === 'pending').length).toBeLessThanOrEqual(1);
    await api.delete(`/api/workflows/${workflowId}`);
  }, 60_000);

  it('keeps the Temporal Schedule in step with edits and removes it on delete', async () => {
    const { api } = await engineWorkspace(app);
    const created = await api.post('/api/workflows', {
      name: 'Nightly',
      triggerType: 'scheduled',
      workflowJson: scheduledGraph({ cron: '0 3 * * *', timezone: 'Europe/Paris' }),
    });
    const workflowId = created.body.workflow.id;
    await expect(describeSchedule(workflowId)).rejects.toBeInstanceOf(ScheduleNotFoundError);

    await api.patch(`/api/workflows/${workflowId}`, { isActive: true });
    const described = await describeSchedule(workflowId);
    expect(described.spec.timezone).toBe('Europe/Paris');
    expect(described.policies.overlap).toBe('SKIP');

    await api.patch(`/api/workflows/${workflowId}`, { workflowJson: scheduledGraph({ cron: '30 4 * * *', timezone: 'UTC' }) });
    expect((await describeSchedule(workflowId)).spec.timezone).toBe('UTC');

    expect((await api.delete(`/api/workflows/${workflowId}`)).status).toBe(204);
    await expect(describeSchedule(workflowId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('is put right when a worker starts after changes the engine could not take', async () => {
    const { ws, api } = await engineWorkspace(app);
    const nightly = (name: string) => api.post('/api/workflows', { name, triggerType: 'scheduled', workflowJson: scheduledGraph({ cron: '0 3 * * *' }) });
    const [toDeactivate, toDelete, toActivate] = await Promise.all(['A', 'B', 'C'].map(async (name) => (await nightly(name)).body.workflow.id as string));
    await api.patch(`/api/workflows/${toDeactivate}`, { isActive: true });
    await api.patch(`/api/workflows/${toDelete}`, { isActive: true });
    // The database changed while the engine was away: no schedule call was made.
    const em = app.orm.em.fork();
    await em.nativeUpdate(Workflow, { id: toDeactivate }, { isActive: false });
    await em.nativeUpdate(Workflow, { id: toDelete }, { deletedAt: new Date(), isActive: false });
    await em.nativeUpdate(Workflow, { id: toActivate }, { isActive: true });
    expect((await describeSchedule(toDeactivate)).state.paused).toBe(false);
    await describeSchedule(toDelete);
    await expect(describeSchedule(toActivate)).rejects.toBeInstanceOf(ScheduleNotFoundError);

    await reconcileSchedules(app.orm, new TemporalSchedules(app.engine.client, app.taskQueue), createLogger('silent'), [ws.workspaceId]);

    expect((await describeSchedule(toDeactivate)).state.paused).toBe(true);
    await expect(describeSchedule(toDelete)).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await describeSchedule(toActivate)).state.paused).toBe(false);
    await api.delete(`/api/workflows/${toDeactivate}`);
    await api.delete(`/api/workflows/${toActivate}`);
  });

  it('cannot be activated without cron or intervalSeconds', async () => {
    const { api } = await engineWorkspace(app);
    const created = await api.post('/api/workflows', { name: 'No schedule', triggerType: 'scheduled' });
    const res = await api.patch(`/api/workflows/${created.body.workflow.id}`, { isActive: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect((await api.get(`/api/workflows/${created.body.workflow.id}`)).body.workflow.isActive).toBe(false);
  });
});

describe('a scheduled tick', () => {
  it('walks every matching ticket in batches, and a repeated batch starts no ticket twice', async () => {
    const { api } = await engineWorkspace(app);
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push((await api.post('/api/v1/tickets', newTicket({ subject: `t${i}` }))).body.data.id);
    const created = await api.post('/api/workflows', {
      name: 'Batched',
      triggerType: 'scheduled',
      workflowJson: scheduledGraph({ cron: '0 0 1 1 *', ticketFilter: { status: ['open'] } }),
    });
    const workflowId = created.body.workflow.id;
    await api.patch(`/api/workflows/${workflowId}`, { isActive: true });

    const tick = async () => {
      const em = app.orm.em.fork();
      const dispatcher = new ExecutionDispatcher(em);
      let cursor: string | null = null;
      let batches = 0;
      let started = 0;
      for (;;) {
        const batch: TickBatch = await runTickBatch(em, dispatcher, { workflowId, tickId: 'tick-1', cursor, now: new Date(), batchSize: 2 });
        batches += 1;
        started += batch.started;
        if (batch.done) return { batches, started };
        cursor = batch.cursor;
      }
    };
    expect(await tick()).toEqual({ batches: 3, started: 5 });
    expect(await tick()).toEqual({ batches: 3, started: 0 });
    const rows = await app.orm.em.fork().find(Execution, { workflow: workflowId });
    expect(rows.map((r) => r.ticketId).sort()).toEqual([...tickets].sort());
    await api.delete(`/api/workflows/${workflowId}`);
  });
});
