import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/app.ts';
import { startOwnTemporal, type OwnTemporal } from '../helpers/own-temporal.ts';
import { settled, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { ReplySignal } from '../../src/triggers/entity.ts';
import { eventually } from '../helpers/poll.ts';
import { finishedExecutions, getTicket, listExecutions, newTicket } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// docs/contract.md §6: a write acknowledged to the client gets its workflows started exactly once,
// even if the engine was down at the time. This file runs a Temporal server of its own (its
// state survives the restart) and stops it in the middle.

let temporal: OwnTemporal;
beforeAll(async () => {
  temporal = await startOwnTemporal();
});
afterAll(() => temporal?.destroy());
const app = useEngineApp(() => ({ temporalAddress: temporal.address }));

/** Fails instead of hanging when the API does not answer within `ms`. */
async function within<T>(ms: number, what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the workflow engine down for a while', () => {
  it('tickets created meanwhile are accepted and each gets exactly one completed execution once it is back', async () => {
    const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'seen' })]);
    const before = (await api.post('/api/v1/tickets', newTicket({ subject: 'Before the outage' }))).body.data.id;
    await finishedExecutions(api, workflowId, 1);

    await temporal.stop();
    const ready = await client(app.baseUrl).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.map((d: { path: string }) => d.path)).toEqual(['temporal']);

    const failuresBefore = app.relay.metrics.dispatchFailures;
    const during: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await within(5_000, `create ticket ${i}`, api.post('/api/v1/tickets', newTicket({ subject: `During the outage #${i}` })));
      expect(res.status).toBe(201);
      during.push(res.body.data.id);
    }
    // The relay delivers the events, cannot start the runs, and keeps the executions pending.
    const waiting = await eventually(async () => {
      const listed = (await listExecutions(api, workflowId)).filter((e) => during.includes(e.ticketId!));
      return listed.length === during.length ? listed : undefined;
    }, 60_000, 'an execution per ticket created during the outage');
    expect(waiting.map((e) => e.status)).toEqual(['pending', 'pending', 'pending']);
    // The executions commit before the relay's attempt to start their runs fails (a start waits for the engine's answer).
    await eventually(async () => (app.relay.metrics.dispatchFailures > failuresBefore ? true : undefined), 30_000, 'a failed attempt to start the runs');

    await temporal.start();
    const executions = await finishedExecutions(api, workflowId, 4, 45_000);
    await settled(app, ws.workspaceId, 30_000);
    const all = await listExecutions(api, workflowId);
    expect(all).toHaveLength(4);
    expect(all.map((e) => e.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(executions.map((e: { ticketId: string }) => e.ticketId).sort()).toEqual([before, ...during].sort());
    for (const ticketId of during) expect((await getTicket(api, ticketId)).tags).toEqual(['seen']);
    expect((await client(app.baseUrl).get('/readyz')).status).toBe(200);
  }, 120_000);

  it('a customer reply written meanwhile reaches the run waiting for it once the engine is back', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > await >true replied, await >false silent', [
      actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 120 }),
      actionNode('replied', { actionType: 'add_tag', tag: 'customer-replied' }),
      actionNode('silent', { actionType: 'add_tag', tag: 'no-reply' }),
    ]);
    const ticketId = (await api.post('/api/v1/tickets', newTicket({ subject: 'Waiting through an outage' }))).body.data.id;
    await eventually(async () => ((await listExecutions(api, workflowId))[0]?.steps.some((s) => s.nodeId === 'await' && s.status === 'waiting') ? true : undefined));

    await temporal.stop();
    // A cancel needs the engine: meanwhile it is a clear 503, and the run goes on.
    const [running] = await listExecutions(api, workflowId);
    const cancel = await within(5_000, 'cancel', api.post(`/api/workflows/${workflowId}/executions/${running.id}/cancel`));
    expect(cancel.status).toBe(503);
    expect(cancel.body.error.code).toBe('unavailable');
    const reply = await within(5_000, 'reply', api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Here you go', senderEmail: 'customer@example.com' }));
    expect(reply.body.meta.messageAddedEvent).toBe('emitted');
    // The reply waits in the database for the engine.
    const em = app.orm.em.fork();
    await eventually(async () => ((await em.fork().count(ReplySignal, { messageId: reply.body.data.id, deliveredAt: null })) === 1 ? true : undefined), 20_000, 'the reply recorded for the run');

    await temporal.start();
    const [done] = await finishedExecutions(api, workflowId, 1, 60_000);
    expect(done.status).toBe('completed');
    expect(done.steps.find((s: { nodeId: string }) => s.nodeId === 'await')).toMatchObject({ status: 'completed', result: true });
    expect((await getTicket(api, ticketId)).tags).toEqual(['customer-replied']);
    // Taken by the signal, long before the 120-second timeout would have asked the database.
    expect(await em.fork().count(ReplySignal, { messageId: reply.body.data.id, deliveredAt: { $ne: null } })).toBe(1);
  }, 120_000);
});
