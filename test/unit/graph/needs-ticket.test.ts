import { describe, expect, it } from 'vitest';
import { GraphWalker, needsTicketSentence, ticketActionsReached, walk } from '../../../src/graph/index.ts';
import { action, condition, edge, expectValid, trigger } from './fixtures.ts';

const manual = (nodes: Record<string, unknown>[], edges: Record<string, unknown>[]) => expectValid({ nodes: [trigger('start', 'manual'), ...nodes], edges }, 'manual');
const http = (id: string) => action(id, { actionType: 'http_request', method: 'POST', url: 'https://example.com/hook' });

describe('ticketActionsReached (a run without a ticket)', () => {
  it('lists the reachable actions that need a ticket, in graph order', () => {
    const g = manual([action('reply', { actionType: 'send_reply', body: 'Hi' }), http('ping'), action('tag')], [edge('start', 'tag'), edge('start', 'ping'), edge('ping', 'reply')]);
    expect(ticketActionsReached(g, { data: {} })).toEqual([
      { nodeId: 'reply', actionType: 'send_reply' },
      { nodeId: 'tag', actionType: 'add_tag' },
    ]);
  });

  it('follows conditions as the run would decide them on its data', () => {
    const g = manual(
      [condition('is-ticket', { field: 'data.kind', operator: 'equals', value: 'ticket' }), action('tag'), http('ping')],
      [edge('start', 'is-ticket'), edge('is-ticket', 'tag', 'true'), edge('is-ticket', 'ping', 'false')],
    );
    expect(ticketActionsReached(g, { data: { kind: 'alert' } })).toEqual([]);
    expect(ticketActionsReached(g, { data: { kind: 'ticket' } })).toEqual([{ nodeId: 'tag', actionType: 'add_tag' }]);
  });

  it('takes every wait_for_reply as timed out: no customer can answer a run without a ticket', () => {
    const g = manual(
      [action('await', { actionType: 'wait_for_reply', timeoutSeconds: 60 }), action('thanks'), action('close', { actionType: 'set_status', status: 'closed' })],
      [edge('start', 'await'), edge('await', 'thanks', 'true'), edge('await', 'close', 'false')],
    );
    expect(ticketActionsReached(g, { data: {} })).toEqual([{ nodeId: 'close', actionType: 'set_status' }]);
  });

  it('counts a condition it cannot evaluate as going both ways', () => {
    const g = manual(
      [condition('odd', { field: 'data.text', operator: 'matches', value: '^a' }), action('tag'), http('ping')],
      [edge('start', 'odd'), edge('odd', 'tag', 'true'), edge('odd', 'ping', 'false')],
    );
    // A pattern that does not compile cannot run: unknown, so the ticket action may be reached.
    const broken = { ...g, nodes: g.nodes.map((n) => (n.id === 'odd' ? { ...n, data: { field: 'data.text', operator: 'matches', value: '(' } } : n)) } as typeof g;
    expect(ticketActionsReached(broken, { data: { text: 'b' } })).toEqual([{ nodeId: 'tag', actionType: 'add_tag' }]);
  });

  it('names one node or several', () => {
    expect(needsTicketSentence([{ nodeId: 'tag', actionType: 'add_tag' }])).toBe('node "tag" (add_tag) needs a ticket');
    expect(
      needsTicketSentence([
        { nodeId: 'a', actionType: 'add_tag' },
        { nodeId: 'b', actionType: 'send_reply' },
        { nodeId: 'c', actionType: 'set_status' },
      ]),
    ).toBe('nodes "a" (add_tag), "b" (send_reply) and "c" (set_status) need a ticket');
  });
});

describe('walk, settling after a failure', () => {
  const g = expectValid({ nodes: [trigger(), action('slow'), action('fails'), action('after')], edges: [edge('trigger', 'slow'), edge('trigger', 'fails'), edge('slow', 'after')] });
  const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it('rejects at once by default, before the nodes still running have finished', async () => {
    const finished: string[] = [];
    const run = (id: string) => (id === 'fails' ? Promise.reject(new Error('boom')) : later(undefined, id === 'slow' ? 30 : 0).then(() => void finished.push(id)));
    await expect(walk(new GraphWalker(g), run)).rejects.toThrow('boom');
    expect(finished).toEqual(['trigger']);
  });

  it('with settle, waits for the nodes still running, starts nothing new, then rejects with the first failure', async () => {
    const finished: string[] = [];
    const run = (id: string) => (id === 'fails' ? Promise.reject(new Error('boom')) : later(undefined, id === 'slow' ? 30 : 0).then(() => void finished.push(id)));
    await expect(walk(new GraphWalker(g), run, { settle: () => true })).rejects.toThrow('boom');
    expect(finished).toEqual(['trigger', 'slow']);
  });
});
