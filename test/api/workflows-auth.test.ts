// Authentication on every endpoint of the workflows interface (docs/contract.md §1: 401 unauthorized
// with WWW-Authenticate: Bearer for a missing, malformed, unknown or revoked key).
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectRevokedKeyRefused, expectUnauthorized } from '../helpers/expect.ts';
import { createWorkflow, getWorkflow, listExecutions, listWorkflows, triggerWorkflow } from '../helpers/api.ts';
import { runnable } from '../helpers/graphs.ts';

const app = useTestApp();
const { ws } = useWorkspace(app);
let workflowId: string;
let executionId: string;
beforeAll(async () => {
  const api = client(app.baseUrl, ws.key);
  workflowId = (await createWorkflow(api, runnable())).id;
  executionId = (await triggerWorkflow(api, workflowId)).id;
});

/** Every endpoint of the workflows interface, with a body that would succeed. */
const endpoints = () =>
  [
    ['GET', '/api/workflows', undefined],
    ['POST', '/api/workflows', { name: 'Would be created' }],
    ['GET', `/api/workflows/${workflowId}`, undefined],
    ['PATCH', `/api/workflows/${workflowId}`, { name: 'Would be renamed', isActive: true }],
    ['DELETE', `/api/workflows/${workflowId}`, undefined],
    ['POST', `/api/workflows/${workflowId}/trigger`, {}],
    ['GET', `/api/workflows/${workflowId}/executions`, undefined],
    ['GET', `/api/workflows/${workflowId}/executions/${executionId}`, undefined],
    ['POST', `/api/workflows/${workflowId}/executions/${executionId}/cancel`, undefined],
  ] as const;

const expectUnauthorizedEverywhere = (headers: Record<string, string>) => expectUnauthorized(app.baseUrl, endpoints(), headers);

/** What the workspace looks like through a good key: the workflow, the list and the executions. */
async function snapshot() {
  const api = client(app.baseUrl, ws.key);
  return {
    workflow: await getWorkflow(api, workflowId),
    list: await listWorkflows(api),
    executions: await listExecutions(api, workflowId),
  };
}

describe('authentication of the workflows interface', () => {
  it('refuses every endpoint without Authorization with 401 and WWW-Authenticate: Bearer', async () => {
    await expectUnauthorizedEverywhere({});
  });

  it.each([
    ['another scheme', () => `Basic ${Buffer.from(`user:${ws.key}`).toString('base64')}`],
    ['the key without a scheme', () => ws.key],
    ['Bearer without a key', () => 'Bearer'],
    ['a made-up key', () => 'Bearer not-a-real-key'],
    ['a truncated key', () => `Bearer ${ws.key.slice(0, -1)}`],
  ])('refuses %s on every endpoint', async (_what, header) => {
    await expectUnauthorizedEverywhere({ authorization: header() });
  });

  it('refuses a revoked key on every endpoint, while another key of the workspace keeps working', async () => {
    await expectRevokedKeyRefused(app, ws, endpoints(), { before: '/api/workflows', after: `/api/workflows/${workflowId}` });
  });

  it('changes nothing on a refused request: no workflow created, renamed, deleted, triggered or cancelled', async () => {
    const before = await snapshot();
    await expectUnauthorizedEverywhere({});
    await expectUnauthorizedEverywhere({ authorization: 'Bearer nope' });
    expect(await snapshot()).toEqual(before);
    expect(before.executions[0]).toMatchObject({ id: executionId, status: 'pending' });
  });

  it('answers 401 before looking at the workflow: unknown and malformed ids too', async () => {
    const anonymous = client(app.baseUrl);
    for (const path of ['/api/workflows/00000000-0000-4000-8000-000000000000', '/api/workflows/nope', '/api/workflows/nope/executions']) {
      const res = await anonymous.get(path);
      expectError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('answers 401 before reading the body: an invalid body without a key is still a 401', async () => {
    const anonymous = client(app.baseUrl);
    expectError(await anonymous.post('/api/workflows', '{not json', { 'content-type': 'application/json' }), 401, 'unauthorized');
    expectError(await anonymous.post('/api/workflows', 'name=x', { 'content-type': 'text/plain' }), 401, 'unauthorized');
  });

  it("a key of one workspace sees nothing of another's workflows", async () => {
    const stranger = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    expect(await listWorkflows(stranger)).toEqual([]);
    expectError(await stranger.get(`/api/workflows/${workflowId}`), 404, 'not_found');
    expectError(await stranger.get(`/api/workflows/${workflowId}/executions`), 404, 'not_found');
  });
});
