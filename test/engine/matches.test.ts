import { describe, expect, it } from 'vitest';
import { Workflow, WorkflowVersion } from '../../src/workflows/entity.ts';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { finishedExecutions, getTicket, openTicket, stepOf } from '../helpers/api.ts';
import { actionNode, conditionNode } from '../helpers/graphs.ts';

// `matches` conditions run on RE2 inside the workflow sandbox (docs/automations.md,
// "Regular expressions"): a pattern that backtracks catastrophically on RegExp decides a
// 100,000-character reply in a real run, and a stored pattern RE2 cannot run fails the
// execution with a message that says what to fix.

const app = useEngineApp();

describe('a matches condition in a workflow run', () => {
  it('decides a 100,000-character customer reply with a pattern RegExp could not finish', async () => {
    // On RegExp, ^(\w+\s?)*$ against 20,000 words and a final "!" tries every way of cutting
    // every word (2^(3·20000) and more): the workflow task would never finish.
    const { api, workflowId } = await workspaceWithWorkflow(app, 'message_received', 'start > only-words >true plain, only-words >false symbols', [
      conditionNode('only-words', { field: 'message.body', operator: 'matches', value: '^(\\w+\\s?)*$' }),
      actionNode('plain', { actionType: 'add_tag', tag: 'plain-words' }),
      actionNode('symbols', { actionType: 'add_tag', tag: 'has-symbols' }),
    ]);
    const ticketId = await openTicket(api);
    const body = `${'word '.repeat(19_999)}word!`;
    expect(body).toHaveLength(100_000);
    const hostile = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body, senderEmail: 'customer@example.com' });
    expect(hostile.body.meta?.messageAddedEvent, JSON.stringify(hostile.body).slice(0, 300)).toBe('emitted');

    const [first] = await finishedExecutions(api, workflowId, 1, 30_000);
    expect(first).toMatchObject({ status: 'completed', error: null });
    expect(stepOf(first, 'only-words')).toMatchObject({ status: 'passed', result: false });
    expect((await getTicket(api, ticketId)).tags).toEqual(['has-symbols']);

    await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Thanks it works now', senderEmail: 'customer@example.com' });
    const [second] = await finishedExecutions(api, workflowId, 2, 30_000);
    expect(stepOf(second, 'only-words')).toMatchObject({ status: 'passed', result: true });
    expect((await getTicket(api, ticketId)).tags).toEqual(['has-symbols', 'plain-words']);
  });

  it('fails the execution, naming the pattern and why, when a stored pattern is one RE2 cannot run', async () => {
    const condition = { field: 'ticket.subject', operator: 'matches' as const, value: '^order' };
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > is-order >true tag', [
      conditionNode('is-order', condition),
      actionNode('tag', { actionType: 'add_tag', tag: 'order' }),
    ]);
    // A graph saved when patterns were JavaScript regular expressions can hold a lookahead,
    // which validation now refuses: write one into the stored version directly.
    const em = app.orm.em.fork();
    const stored = await em.findOneOrFail(WorkflowVersion, { workflow: workflowId, version: 1 });
    const graph = structuredClone(stored.graph);
    graph.nodes.find((n) => n.id === 'is-order')!.data = { ...condition, value: '^(?=order)\\w+' };
    await em.nativeUpdate(WorkflowVersion, { workflow: workflowId, version: 1 }, { graph });
    await em.nativeUpdate(Workflow, { id: workflowId }, { graph });

    // Two events in a row (the second is delivered too: the first does not block delivery),
    // then a manual run.
    const first = await openTicket(api, { subject: 'order 1' });
    const second = await openTicket(api, { subject: 'order 2' });
    const res = await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId: first });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const executions = await finishedExecutions(api, workflowId, 3, 30_000);
    expect(executions.map((e: { triggeredBy: string }) => e.triggeredBy).sort()).toEqual(['manual', 'ticket_created', 'ticket_created']);
    for (const execution of executions) {
      expect(execution.status).toBe('failed');
      expect(execution.error).toMatch(/condition on "ticket\.subject" cannot be evaluated: its pattern ".*" is not a valid RE2 regular expression: .*lookahead is not supported.*Edit the workflow/);
      expect(stepOf(execution, 'tag')?.status).toBe('not_reached');
    }
    expect((await getTicket(api, first)).tags).toEqual([]);
    expect((await getTicket(api, second)).tags).toEqual([]);
  });
});
