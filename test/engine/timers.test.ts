import { describe, expect, it } from 'vitest';
import { runOnNewTicket, useEngineApp } from '../helpers/engine.ts';
import { executionAtStep, finishedExecutions, getTicket, stepOf, stepStates } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// docs/contract.md §8: delay (seconds or until) and wait_for_reply (true on a customer reply in time,
// false on timeout), each showing a `waiting` step until it finishes.

const app = useEngineApp();

const start = { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } };
const tag = (id: string, value: string) => ({ id, type: 'action', data: { actionType: 'add_tag', tag: value } });

describe('delay', () => {
  it.each([
    ['seconds', () => ({ seconds: 1 })],
    // Far enough ahead that a busy machine still starts the run before the instant passes.
    ['until', () => ({ until: new Date(Date.now() + 5_000).toISOString() })],
  ])('with %s waits, then runs the next node', async (_kind, params) => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > pause > after', [
      start,
      actionNode('pause', { actionType: 'delay', ...params() }),
      tag('after', 'after-delay'),
    ]);
    const waiting = await executionAtStep(api, workflowId, 'pause', 'waiting');
    expect(waiting.status).toBe('running');
    expect(stepOf(waiting, 'after')).toBeUndefined();

    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    expect(stepStates(done)).toEqual([
      ['start', 'passed'],
      ['pause', 'completed'],
      ['after', 'completed'],
    ]);
    expect(stepOf(done, 'pause')!.completedAt).not.toBeNull();
    expect((await getTicket(api, ticketId)).tags).toEqual(['after-delay']);
  });

  it('with an until already past goes straight on', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > pause > after', [
      start,
      actionNode('pause', { actionType: 'delay', until: '2020-01-01T00:00:00Z' }),
      tag('after', 'after-delay'),
    ]);
    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    expect((await getTicket(api, ticketId)).tags).toEqual(['after-delay']);
  });
});

describe('wait_for_reply', () => {
  /** A run on a new ticket waiting up to `timeoutSeconds` for the customer: a reply tags customer-replied, the timeout no-reply. */
  const runWaitingForReply = (timeoutSeconds: number) =>
    runOnNewTicket(app, 'start > await >true replied, await >false silent', [
      actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds }),
      tag('replied', 'customer-replied'),
      tag('silent', 'no-reply'),
    ]);

  it('takes its true edge when the customer replies in time', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(30);
    const waiting = await executionAtStep(api, workflowId, 'await', 'waiting');
    expect(waiting.status).toBe('running');

    const reply = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Here are the logs', senderEmail: 'CUSTOMER@example.com' });
    expect(reply.body.meta.messageAddedEvent).toBe('emitted');

    const [done] = await finishedExecutions(api, workflowId, 1, 10_000);
    expect(done.status).toBe('completed');
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: true });
    expect(stepOf(done, 'replied')?.status).toBe('completed');
    expect(stepOf(done, 'silent')).toBeUndefined();
    expect((await getTicket(api, ticketId)).tags).toEqual(['customer-replied']);
  });

  it('takes its false edge on timeout', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(1);

    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: false });
    expect(stepOf(done, 'silent')?.status).toBe('completed');
    expect(stepOf(done, 'replied')).toBeUndefined();
    expect((await getTicket(api, ticketId)).tags).toEqual(['no-reply']);
  });

  it('ignores a reply from someone other than the customer', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(2);
    await executionAtStep(api, workflowId, 'await', 'waiting');

    const reply = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'I am the boss, answer me', senderEmail: 'boss@example.com' });
    expect(reply.body.meta.messageAddedEvent).toBe('skipped_sender_mismatch');

    const [done] = await finishedExecutions(api, workflowId);
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: false });
    expect((await getTicket(api, ticketId)).tags).toEqual(['no-reply']);
  });

  it('counts a reply the relay never passed on: at the timeout the database settles it', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(3);
    await executionAtStep(api, workflowId, 'await', 'waiting');

    await app.relay.stop();
    try {
      const reply = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Sent while nobody listened', senderEmail: 'customer@example.com' });
      expect(reply.body.meta.messageAddedEvent).toBe('emitted');
      const [done] = await finishedExecutions(api, workflowId, 1, 15_000);
      expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: true });
      expect((await getTicket(api, ticketId)).tags).toEqual(['customer-replied']);
    } finally {
      app.relay.start();
    }
  });

  it('does not count a reply written before it began waiting', async () => {
    const { api, workflowId, ticketId } = await runOnNewTicket(app, 'start > pause > await >true replied, await >false silent', [
      start,
      actionNode('pause', { actionType: 'delay', seconds: 2 }),
      actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 2 }),
      tag('replied', 'customer-replied'),
      tag('silent', 'no-reply'),
    ]);
    await executionAtStep(api, workflowId, 'pause', 'waiting');
    const reply = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Before you asked', senderEmail: 'customer@example.com' });
    expect(reply.body.meta.messageAddedEvent).toBe('emitted');

    const [done] = await finishedExecutions(api, workflowId);
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: false });
    expect((await getTicket(api, ticketId)).tags).toEqual(['no-reply']);
  });
});
