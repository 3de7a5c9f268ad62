import { describe, expect, it } from 'vitest';
import { MAX_CHAIN_DEPTH } from '../../src/triggers/loop-guard.ts';
import { engineWorkspace, settled, useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { activeWorkflow, finishedExecutions, getTicket, listExecutions, openTicket, stepOf } from '../helpers/api.ts';
import { actionNode, conditionNode } from '../helpers/graphs.ts';

// docs/contract.md §5 loop guard: an automation's own changes never start the same workflow again for
// the ticket within that chain, and a chain stops at depth 5 (recorded and counted).

const app = useEngineApp();

describe('a workflow that changes the ticket that triggered it', () => {
  it('runs exactly once per outside change and then settles', async () => {
    // On any update it flips the priority: unguarded, each flip would trigger the next one.
    const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'ticket_updated', 'start > is-high >true lower, is-high >false raise', [
      conditionNode('is-high', { field: 'ticket.priority', operator: 'equals', value: 'high' }),
      actionNode('lower', { actionType: 'set_priority', priority: 'low' }),
      actionNode('raise', { actionType: 'set_priority', priority: 'high' }),
    ]);
    const skipsBefore = app.relay.metrics.loopGuardSkips;
    const ticketId = await openTicket(api);

    expect((await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'pending' })).status).toBe(200);
    await finishedExecutions(api, workflowId, 1);
    await settled(app, ws.workspaceId);
    expect(await listExecutions(api, workflowId)).toHaveLength(1);
    expect((await getTicket(api, ticketId)).priority).toBe('high');

    expect((await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'escalated' })).status).toBe(200);
    await finishedExecutions(api, workflowId, 2);
    const events = await settled(app, ws.workspaceId);
    const executions = await listExecutions(api, workflowId);
    expect(executions).toHaveLength(2);
    expect(executions.every((e) => e.status === 'completed')).toBe(true);
    expect((await getTicket(api, ticketId)).priority).toBe('low');

    // The workflow's own changes were recorded as skipped by the loop guard.
    const guarded = events.filter((e) => e.lastError?.includes('already ran in this chain'));
    expect(guarded).toHaveLength(2);
    expect(app.relay.metrics.loopGuardSkips - skipsBefore).toBe(2);
  });
});

describe('workflows that trigger each other', () => {
  it('stop once each has run in the chain', async () => {
    const { ws, api } = await engineWorkspace(app);
    // ping adds "pong-…" on a "ping-…" tag, pong adds "ping-…" on a "pong-…" tag: an endless
    // exchange of new tags, were it not for the guard.
    const seed = await activeWorkflow(api, 'ticket_created', 'start > seed', [actionNode('seed', { actionType: 'add_tag', tag: 'ping-0' })]);
    const exchange = (from: string, to: string) =>
      activeWorkflow(
        api,
        'tag_added',
        'start > mine >true answer',
        [
          conditionNode('mine', { field: 'tag', operator: 'starts_with', value: `${from}-` }),
          actionNode('answer', { actionType: 'add_tag', tag: `${to}-{{tag}}` }),
        ],
        from,
      );
    const ping = await exchange('ping', 'pong');
    const pong = await exchange('pong', 'ping');
    const ticketId = await openTicket(api);

    await finishedExecutions(api, seed);
    await settled(app, ws.workspaceId);
    // seed → ping-0 → ping answers pong-ping-0 → pong answers ping-pong-ping-0 → ping may not run again.
    expect((await getTicket(api, ticketId)).tags).toEqual(['ping-0', 'pong-ping-0', 'ping-pong-ping-0']);
    expect(await listExecutions(api, ping)).toHaveLength(1);
    // pong runs for ping-0 (condition false, in seed's chain) and for pong-ping-0.
    expect(await listExecutions(api, pong)).toHaveLength(2);
  });

  it(`stop at the chain depth limit (${MAX_CHAIN_DEPTH})`, async () => {
    const { ws, api } = await engineWorkspace(app);
    const stopsBefore = app.relay.metrics.depthLimitStops;
    // step-0 starts the chain on ticket creation; step-i (i ≥ 1) answers tag "s-i" with "s-(i+1)".
    const steps: string[] = [];
    steps.push(
      await activeWorkflow(api, 'ticket_created', 'start > next', [actionNode('next', { actionType: 'add_tag', tag: 's-1' })]),
    );
    for (let i = 1; i <= MAX_CHAIN_DEPTH + 1; i++) {
      steps.push(
        await activeWorkflow(
          api,
          'tag_added',
          'start > mine >true next',
          [
            conditionNode('mine', { field: 'tag', operator: 'equals', value: `s-${i}` }),
            actionNode('next', { actionType: 'add_tag', tag: `s-${i + 1}` }),
          ],
          `step ${i}`,
        ),
      );
    }
    const ticketId = await openTicket(api);
    await finishedExecutions(api, steps[0]);
    const events = await settled(app, ws.workspaceId);

    // Five workflows ran in the chain (step-0 … step-4); the tag step-4 added starts nothing.
    expect((await getTicket(api, ticketId)).tags).toEqual(['s-1', 's-2', 's-3', 's-4', 's-5']);
    const last = events.find((e) => e.type === 'tag_added' && e.payload.tag === 's-5')!;
    expect(last.lastError).toMatch(/depth limit reached/);
    expect(app.relay.metrics.depthLimitStops - stopsBefore).toBeGreaterThanOrEqual(1);
    // The workflow that would answer "s-5" ran only for earlier tags of the chain, never for it.
    const beyond = await listExecutions(api, steps[MAX_CHAIN_DEPTH]);
    expect(beyond.map((e) => stepOf(e, 'mine')?.result)).toEqual(beyond.map(() => false));
  });
});
