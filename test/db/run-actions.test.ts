import { describe, expect, it } from 'vitest';
import { createActivities } from '../../temporal/activities/index.ts';
import type { ActionInput } from '../../temporal/activities/types.ts';
import { createLogger } from '../../src/logger.ts';
import { sql } from '../../src/common/sql.ts';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { createWorkflow, expectStatus, newTicket, patchWorkflow, triggerWorkflow } from '../helpers/api.ts';

/**
 * runActions, the local activity that takes the ticket actions a run reached at once, on the
 * real database (no Temporal: the test calls it as the worker would). Its usual batch is one
 * transaction; what the run, the ticket and the events show must be as if each action had
 * been taken in turn, and a retry must take nothing twice.
 */
const app = useTestApp(); // no engine: triggered executions stay pending for the test to run
const { api } = useWorkspace(app, [{ userId: 'agent-1' }]);
const activities = () => createActivities({ orm: app.orm, logger: createLogger('silent'), http: { allow: [] } });

const GRAPH = {
  nodes: [
    { id: 'start', type: 'trigger', data: { triggerType: 'manual' } },
    { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'hardware' } },
    { id: 'raise', type: 'action', data: { actionType: 'set_priority', priority: 'high' } },
    { id: 'assign', type: 'action', data: { actionType: 'assign_ticket', assignTo: 'ghost-user' } },
  ],
  edges: [
    { source: 'start', target: 'tag' },
    { source: 'start', target: 'raise' },
    { source: 'start', target: 'assign' },
  ],
};

/** A pending execution of a manual workflow on a new ticket. */
async function pendingRun() {
  const created = await api.post('/api/v1/tickets', newTicket());
  expectStatus(created, 201);
  const ticketId: string = created.body.data.id;
  const workflow = await createWorkflow(api, { triggerType: 'manual', workflowJson: GRAPH });
  await patchWorkflow(api, workflow.id, { isActive: true });
  const execution = await triggerWorkflow(api, workflow.id, { ticketId });
  expect(execution.status).toBe('pending');
  const startedAt = new Date().toISOString();
  const action = (nodeId: string, seq: number): ActionInput => ({
    executionId: execution.id,
    workspaceId: '',
    workflowId: workflow.id,
    ticketId,
    chain: [workflow.id],
    nodeId,
    seq,
    action: GRAPH.nodes.find((n) => n.id === nodeId)!.data as ActionInput['action'],
    startedAt,
  });
  const workspaceId = (await sql<{ workspace_id: string }>(app.orm.em.fork(), 'select "workspace_id" from "tickets" where "id" = $1', [ticketId]))[0].workspace_id;
  const first = (nodeId: string, seq: number): ActionInput => ({
    ...action(nodeId, seq),
    workspaceId,
    begin: true,
    steps: [{ nodeId: 'start', seq: 1, status: 'passed', startedAt, completedAt: startedAt }],
  });
  const later = (nodeId: string, seq: number): ActionInput => ({ ...action(nodeId, seq), workspaceId, steps: [] });
  return { ticketId, workflowId: workflow.id, executionId: execution.id as string, first, later };
}

const executionOf = async (workflowId: string, executionId: string) => {
  const res = await api.get(`/api/workflows/${workflowId}/executions`);
  return res.body.executions.find((e: { id: string }) => e.id === executionId);
};
const ticketOf = async (ticketId: string) => (await api.get(`/api/v1/tickets/${ticketId}`)).body.data;
const eventsOf = (ticketId: string) =>
  sql<{ type: string; payload: Record<string, any> }>(app.orm.em.fork(), 'select "type", "payload" from "outbox_events" where "ticket_id" = $1 order by "created_at", "type" desc', [ticketId]);

describe('runActions', () => {
  it('begins the run, takes the changes in turn with their events, records the steps and ends the run', async () => {
    const run = await pendingRun();
    const answer = await activities().runActions({ actions: [run.first('tag', 2), run.later('raise', 3)], finish: true });

    expect(answer.finished).toBe(true);
    expect(answer.outcomes).toMatchObject([{ ticket: { tags: ['hardware'], priority: 'medium' } }, { ticket: { tags: ['hardware'], priority: 'high' } }]);
    expect(await ticketOf(run.ticketId)).toMatchObject({ tags: ['hardware'], priority: 'high' });
    const execution = await executionOf(run.workflowId, run.executionId);
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'passed'],
      ['tag', 'completed'],
      ['raise', 'completed'],
    ]);
    // Each change is an event of its own, seen from the ticket as the change before left it.
    const events = (await eventsOf(run.ticketId)).filter((e) => e.type !== 'ticket_created');
    expect(events.map((e) => e.type).sort()).toEqual(['tag_added', 'ticket_updated', 'ticket_updated']);
    const updates = events.filter((e) => e.type === 'ticket_updated');
    const tagged = updates.find((e) => e.payload.changes.tags)!;
    const raised = updates.find((e) => e.payload.changes.priority)!;
    expect(tagged.payload).toMatchObject({ changes: { tags: { from: [], to: ['hardware'] } }, previous: { tags: [], priority: 'medium' } });
    expect(raised.payload).toMatchObject({ changes: { priority: { from: 'medium', to: 'high' } }, previous: { tags: ['hardware'] }, ticket: { priority: 'high' } });
    expect(raised.payload.cause).toMatchObject({ executionId: run.executionId, chain: [run.workflowId] });
  });

  it('a retry after the batch committed takes nothing twice', async () => {
    const run = await pendingRun();
    const batch = { actions: [run.first('tag', 2), run.later('raise', 3)], finish: true };
    await activities().runActions(batch);
    const eventsBefore = await eventsOf(run.ticketId);

    const again = await activities().runActions(batch);
    expect(again.outcomes).toMatchObject([{ ticket: { tags: ['hardware'], priority: 'high' } }, { ticket: { tags: ['hardware'], priority: 'high' } }]);
    expect(await eventsOf(run.ticketId)).toHaveLength(eventsBefore.length);
    expect((await executionOf(run.workflowId, run.executionId)).status).toBe('completed');
  });

  it('takes nothing for a run cancelled before it began', async () => {
    const run = await pendingRun();
    expectStatus(await api.post(`/api/workflows/${run.workflowId}/executions/${run.executionId}/cancel`), 202);

    const answer = await activities().runActions({ actions: [run.first('tag', 2), run.later('raise', 3)], finish: true });
    expect(answer).toMatchObject({ notRunning: true, outcomes: [] });
    expect(await ticketOf(run.ticketId)).toMatchObject({ tags: [], priority: 'medium' });
    expect((await eventsOf(run.ticketId)).map((e) => e.type)).toEqual(['ticket_created']);
  });

  it('an action that breaks a rule fails alone: the others take effect', async () => {
    const run = await pendingRun();
    const answer = await activities().runActions({ actions: [run.first('assign', 2), run.later('tag', 3)], finish: true });

    expect(answer.finished).toBe(false);
    expect(answer.outcomes[0]).toMatchObject({ failed: expect.stringMatching(/ghost-user.*not a current member/) });
    expect(answer.outcomes[1]).toMatchObject({ ticket: { tags: ['hardware'] } });
    expect(await ticketOf(run.ticketId)).toMatchObject({ tags: ['hardware'], assignedTo: null });
    // The run began with the action that took effect, and shows the steps walked before it.
    const execution = await executionOf(run.workflowId, run.executionId);
    expect(execution.status).toBe('running');
    expect(execution.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'passed'],
      ['tag', 'completed'],
    ]);
  });
});
