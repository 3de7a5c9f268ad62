import { describe, expect, it } from 'vitest';
import { runOnNewTicket, useEngineApp } from '../helpers/engine.ts';
import { executionAtStep, finishedExecutions, getTicket, stepOf, stepStates, type ExecutionView } from '../helpers/api.ts';
import type { Client } from '../helpers/app.ts';
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

  /** The wait of the finished run ended `replied` (true: the customer answered in time), and the ticket is tagged so. */
  async function expectWaitEnded(api: Client, done: ExecutionView, ticketId: string, replied: boolean) {
    expect(stepOf(done, 'await')).toMatchObject({ status: 'completed', result: replied });
    expect((await getTicket(api, ticketId)).tags).toEqual([replied ? 'customer-replied' : 'no-reply']);
  }

  /** As expectWaitEnded, and the run completed through the edge of that outcome only. */
  async function expectEdgeTaken(api: Client, done: ExecutionView, ticketId: string, replied: boolean) {
    const [taken, skipped] = replied ? ['replied', 'silent'] : ['silent', 'replied'];
    expect(done.status).toBe('completed');
    expect(stepOf(done, taken)?.status).toBe('completed');
    expect(stepOf(done, skipped)).toBeUndefined();
    await expectWaitEnded(api, done, ticketId, replied);
  }

  /** Adds a message to the ticket from `senderEmail`; what the API says of its message_received event. */
  const replyFrom = async (api: Client, ticketId: string, senderEmail: string, body: string) =>
    (await api.post(`/api/v1/tickets/${ticketId}/messages`, { body, senderEmail })).body.meta.messageAddedEvent;

  it('takes its true edge when the customer replies in time', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(30);
    const waiting = await executionAtStep(api, workflowId, 'await', 'waiting');
    expect(waiting.status).toBe('running');

    expect(await replyFrom(api, ticketId, 'CUSTOMER@example.com', 'Here are the logs')).toBe('emitted');

    const [done] = await finishedExecutions(api, workflowId, 1, 10_000);
    await expectEdgeTaken(api, done, ticketId, true);
  });

  it('takes its false edge on timeout', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(1);

    const [done] = await finishedExecutions(api, workflowId);
    await expectEdgeTaken(api, done, ticketId, false);
  });

  it('ignores a reply from someone other than the customer', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(2);
    await executionAtStep(api, workflowId, 'await', 'waiting');

    expect(await replyFrom(api, ticketId, 'boss@example.com', 'I am the boss, answer me')).toBe('skipped_sender_mismatch');

    const [done] = await finishedExecutions(api, workflowId);
    await expectWaitEnded(api, done, ticketId, false);
  });

  it('counts a reply the relay never passed on: at the timeout the database settles it', async () => {
    const { api, workflowId, ticketId } = await runWaitingForReply(3);
    await executionAtStep(api, workflowId, 'await', 'waiting');

    await app.relay.stop();
    try {
      expect(await replyFrom(api, ticketId, 'customer@example.com', 'Sent while nobody listened')).toBe('emitted');
      const [done] = await finishedExecutions(api, workflowId, 1, 15_000);
      await expectWaitEnded(api, done, ticketId, true);
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
    expect(await replyFrom(api, ticketId, 'customer@example.com', 'Before you asked')).toBe('emitted');

    const [done] = await finishedExecutions(api, workflowId);
    await expectWaitEnded(api, done, ticketId, false);
  });
});
