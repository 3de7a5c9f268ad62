import { beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/triggers/webhook-signature.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { activeWorkflow, finishedExecutions, newTicket } from '../helpers/api.ts';
import { actionNode, conditionNode, triggerNode } from '../helpers/graphs.ts';

const app = useEngineApp();
let api: Client;
let workflowId: string;
let secret: string;
let path: string;

beforeAll(async () => {
  ({ api } = await engineWorkspace(app));
  workflowId = await activeWorkflow(api, 'webhook', 'hook > is-billing >true tag', [
    triggerNode('webhook', 'hook'),
    conditionNode('is-billing', { field: 'data.topic', operator: 'equals', value: 'billing' }),
    actionNode('tag', { actionType: 'add_tag', tag: 'from-{{data.source}}' }),
  ]);
  const workflow = (await api.get(`/api/workflows/${workflowId}`)).body.workflow;
  ({ secret, path } = workflow.webhook);
});

/** POSTs a raw body to the webhook with the given signature header (none when undefined). */
function postHook(body: string | Buffer, signature: string | undefined, target = path, contentType = 'application/json') {
  return fetch(app.baseUrl + target, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(signature ? { 'x-deskflow-signature': signature } : {}) },
    body,
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
}

describe('webhook trigger', () => {
  it('shows its address and secret on GET', async () => {
    expect(path).toBe(`/api/workflows/${workflowId}/webhook`);
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
  });

  it('accepts a correctly signed body with 202 and runs with the body as data', async () => {
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    const body = JSON.stringify({ topic: 'billing', source: 'stripe', ticketId: ticket.id });
    const res = await postHook(body, signatureHeader(secret, body));
    expect(res.status).toBe(202);
    expect(res.body.execution).toMatchObject({ workflowId, triggeredBy: 'webhook', ticketId: ticket.id });

    const executions = await finishedExecutions(api, workflowId);
    const run = executions.find((e: { id: string }) => e.id === res.body.execution.id);
    expect(run.status).toBe('completed');
    expect(run.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['hook', 'is-billing', 'tag']);
    expect((await api.get(`/api/v1/tickets/${ticket.id}`)).body.data.tags).toEqual(['from-stripe']);
  });

  it('refuses a wrong signature, a stale or future timestamp and a missing header with 401', async () => {
    // Not about billing: its run needs no ticket.
    const body = JSON.stringify({ topic: 'support' });
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      signatureHeader('whsec_wrong', body),
      signatureHeader(secret, body + ' '),
      signatureHeader(secret, body, now - 301),
      // Time passes before the request arrives, bringing a future timestamp closer: keep it well out.
      signatureHeader(secret, body, now + 360),
      'garbage',
      undefined,
    ];
    for (const signature of cases) {
      const res = await postHook(body, signature);
      expect(res.status, String(signature)).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    // Well inside the window: a slow machine between computing `now` and the request must not turn it stale.
    expect(await postHook(body, signatureHeader(secret, body, now - 280))).toMatchObject({ status: 202 });
  });

  it('answers 409 for an inactive workflow, and nothing runs', async () => {
    const created = await api.post('/api/workflows', { name: 'Dormant hook', triggerType: 'webhook' });
    const dormant = (await api.get(`/api/workflows/${created.body.workflow.id}`)).body.workflow;
    const body = '{"x":1}';
    const res = await postHook(body, signatureHeader(dormant.webhook.secret, body), dormant.webhook.path);
    expect(res.status).toBe(409);
    expect((await api.get(`/api/workflows/${dormant.id}/executions`)).body.executions).toEqual([]);
  });

  it('refuses bodies that are not JSON objects, too large, or name a ticket of another workspace', async () => {
    const array = '[1,2]';
    expect((await postHook(array, signatureHeader(secret, array))).status).toBe(400);
    const text = 'hello';
    expect((await postHook(text, signatureHeader(secret, text), path, 'text/plain')).status).toBe(415);
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    expect((await postHook(big, signatureHeader(secret, big))).status).toBe(413);
    const other = await engineWorkspace(app);
    const foreign = (await other.api.post('/api/v1/tickets', newTicket())).body.data;
    const naming = JSON.stringify({ ticketId: foreign.id });
    expect((await postHook(naming, signatureHeader(secret, naming))).status).toBe(404);
  });

  it('refuses invalid UTF-8, JSON nested too deep and other media types, and nothing runs', async () => {
    const before = (await api.get(`/api/workflows/${workflowId}/executions?limit=200`)).body.executions.length;
    const latin1 = Buffer.concat([Buffer.from('{"topic":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const garbled = await postHook(latin1, signatureHeader(secret, latin1));
    expect(garbled).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: 'The request body is not valid UTF-8.' } } });

    const deep = `{"topic":"billing","tree":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const nested = await postHook(deep, signatureHeader(secret, deep));
    expect(nested).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ path: 'tree' }] } } });

    const body = '{"topic":"billing"}';
    expect((await postHook(body, signatureHeader(secret, body), path, 'application/merge-patch+json')).status).toBe(415);
    const empty = await postHook('', signatureHeader(secret, ''));
    expect(empty).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    expect((await api.get(`/api/workflows/${workflowId}/executions?limit=200`)).body.executions).toHaveLength(before);
  });

  it('is 404 for workflows that do not take webhooks', async () => {
    const manual = await api.post('/api/workflows', { name: 'Manual', triggerType: 'manual' });
    const body = '{}';
    const res = await postHook(body, signatureHeader(secret, body), `/api/workflows/${manual.body.workflow.id}/webhook`);
    expect(res.status).toBe(404);
  });
});

