// Runs that could only fail are refused, not started
// (docs/automations.md, "Runs without a ticket"): a manual or webhook run without a ticket whose
// path reaches an action that needs one is a 400 naming the node; a scheduled workflow whose actions need a ticket needs a
// ticketFilter, said when it is saved. Nothing is created on a refusal.
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/triggers/webhook-signature.ts';
import { useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectValidation } from '../helpers/expect.ts';
import { createTicket, createWorkflow, listExecutions, patchWorkflow } from '../helpers/api.ts';
import { actionNode, conditionNode, paths, triggerNode } from '../helpers/graphs.ts';

const app = useTestApp();
const { api } = useWorkspace(app);

const graph = (triggerType: string, edges: string, nodes: unknown[]) => ({ triggerType, workflowJson: { nodes: [triggerNode(triggerType, 'start'), ...nodes], edges: paths(edges) } });

describe('a manual run without a ticket', () => {
  it('is refused with 400 naming the action that needs a ticket, and nothing is created', async () => {
    const workflow = await createWorkflow(api, graph('manual', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'x' })]));
    const res = await api.post(`/api/workflows/${workflow.id}/trigger`, { data: { reason: 'demo' } });
    expectValidation(res, 'ticketId', /node "tag" \(add_tag\) needs a ticket/);
    expect(res.body.error.message).toMatch(/node "tag" \(add_tag\) needs a ticket/);
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });

  it('names every such action of parallel branches', async () => {
    const workflow = await createWorkflow(
      api,
      graph('manual', 'start > raise, start > reply, start > notify', [
        actionNode('raise', { actionType: 'set_priority', priority: 'high' }),
        actionNode('reply', { actionType: 'send_reply', body: 'Hello' }),
        actionNode('notify', { actionType: 'http_request', method: 'POST', url: 'https://example.com/hook' }),
      ]),
    );
    const res = await api.post(`/api/workflows/${workflow.id}/trigger`, {});
    expectValidation(res, 'ticketId', /nodes "raise" \(set_priority\) and "reply" \(send_reply\) need a ticket/);
  });

  it('is accepted when its path reaches only actions that need no ticket', async () => {
    const workflow = await createWorkflow(
      api,
      graph('manual', 'start > pause > notify > await >false later', [
        actionNode('pause', { actionType: 'delay', seconds: 60 }),
        actionNode('notify', { actionType: 'http_request', method: 'POST', url: 'https://example.com/hook' }),
        actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 60 }),
        actionNode('later', { actionType: 'http_request', method: 'GET', url: 'https://example.com/later' }),
      ]),
    );
    expect((await api.post(`/api/workflows/${workflow.id}/trigger`, {})).status).toBe(202);
  });

  it('is judged on the path its data takes: a condition that leads away from the ticket action lets it run', async () => {
    const workflow = await createWorkflow(
      api,
      graph('manual', 'start > has-ticket >true tag, has-ticket >false notify', [
        conditionNode('has-ticket', { field: 'data.kind', operator: 'equals', value: 'ticket' }),
        actionNode('tag', { actionType: 'add_tag', tag: 'x' }),
        actionNode('notify', { actionType: 'http_request', method: 'POST', url: 'https://example.com/hook' }),
      ]),
    );
    expect((await api.post(`/api/workflows/${workflow.id}/trigger`, { data: { kind: 'alert' } })).status).toBe(202);
    expectValidation(await api.post(`/api/workflows/${workflow.id}/trigger`, { data: { kind: 'ticket' } }), 'ticketId', /"tag"/);
    // A wait_for_reply without a ticket can only time out: its "true" branch is never reached.
    const waits = await createWorkflow(
      api,
      graph('manual', 'start > await >true tag, await >false notify', [
        actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 60 }),
        actionNode('tag', { actionType: 'add_tag', tag: 'x' }),
        actionNode('notify', { actionType: 'http_request', method: 'POST', url: 'https://example.com/hook' }),
      ]),
    );
    expect((await api.post(`/api/workflows/${waits.id}/trigger`, {})).status).toBe(202);
  });

  it('with a ticket, the same workflow runs', async () => {
    const workflow = await createWorkflow(api, graph('manual', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'x' })]));
    const ticket = await createTicket(api);
    expect((await api.post(`/api/workflows/${workflow.id}/trigger`, { ticketId: ticket.id })).status).toBe(202);
  });
});

describe('a webhook without a ticketId', () => {
  it('is refused with 400 naming the node when the path needs a ticket', async () => {
    const workflow = await createWorkflow(api, graph('webhook', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'from-{{data.source}}' })]));
    await patchWorkflow(api, workflow.id, { isActive: true });
    const { secret, path } = (await api.get(`/api/workflows/${workflow.id}`)).body.workflow.webhook;
    const body = JSON.stringify({ source: 'stripe' });
    const res = await fetch(app.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-deskflow-signature': signatureHeader(secret, body) }, body });
    const answer = { status: res.status, body: await res.json() };
    expectValidation(answer as never, 'ticketId', /node "tag" \(add_tag\) needs a ticket/);
    expect(await listExecutions(api, workflow.id)).toEqual([]);
  });
});

describe('a scheduled workflow', () => {
  const scheduled = (trigger: Record<string, unknown>, nodes: unknown[], edges: string) => ({
    triggerType: 'scheduled',
    workflowJson: { nodes: [triggerNode('scheduled', 'tick', trigger), ...nodes], edges: paths(edges) },
  });

  it('whose actions need a ticket cannot be saved without a ticketFilter', async () => {
    const res = await api.post('/api/workflows', { name: 'Sweep', ...scheduled({ cron: '0 2 * * *' }, [actionNode('close', { actionType: 'set_status', status: 'closed' })], 'tick > close') });
    expectValidation(res, 'workflowJson.nodes[0].data.ticketFilter', /node "close" \(set_status\) needs a ticket, so this scheduled workflow needs a ticketFilter/);
  });

  it('is saved with a ticketFilter, or when its actions need no ticket', async () => {
    const close = [actionNode('close', { actionType: 'set_status', status: 'closed' })];
    expect((await api.post('/api/workflows', { name: 'Sweep', ...scheduled({ cron: '0 2 * * *', ticketFilter: { status: ['solved'] } }, close, 'tick > close') })).status).toBe(201);
    const ping = [actionNode('ping', { actionType: 'http_request', method: 'POST', url: 'https://example.com/nightly' })];
    expect((await api.post('/api/workflows', { name: 'Ping', ...scheduled({ intervalSeconds: 3600 }, ping, 'tick > ping') })).status).toBe(201);
  });

  it('loses its ticketFilter only together with its ticket actions', async () => {
    const close = [actionNode('close', { actionType: 'set_status', status: 'closed' })];
    const workflow = await createWorkflow(api, { name: 'Sweep', ...scheduled({ cron: '0 2 * * *', ticketFilter: { status: ['solved'] } }, close, 'tick > close') });
    const res = await api.patch(`/api/workflows/${workflow.id}`, { workflowJson: scheduled({ cron: '0 2 * * *' }, close, 'tick > close').workflowJson });
    expectValidation(res, 'workflowJson.nodes[0].data.ticketFilter');
    expect((await api.get(`/api/workflows/${workflow.id}`)).body.workflow.version).toBe(1);
  });

  it('a workflow retyped to scheduled keeps the rule', async () => {
    const workflow = await createWorkflow(api, graph('manual', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'x' })]));
    expectValidation(await api.patch(`/api/workflows/${workflow.id}`, { triggerType: 'scheduled' }), 'workflowJson.nodes[0].data.ticketFilter');
  });
});
