import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCidr, isRestricted } from '../../temporal/activities/http-request.ts';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { finishedExecutions, newTicket } from '../helpers/api.ts';
import { actionNode, triggerNode } from '../helpers/graphs.ts';

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };

let receiver: http.Server;
let base: string;
const seen: Seen[] = [];
/** Status codes the receiver answers with, in order (then 200). */
let script: number[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const status = script.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: status < 400, n: seen.length, pad: 'y'.repeat(3000) }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
const app = useEngineApp({ httpAllow: ['127.0.0.1'] });

async function runHttpWorkflow(url: string, extra: Record<string, unknown> = {}) {
  const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'created > notify', [
    triggerNode('ticket_created', 'created'),
    actionNode('notify', { actionType: 'http_request', method: 'POST', url, headers: { 'x-ticket': '{{ticket.id}}' }, body: { subject: '{{ticket.subject}}' }, ...extra }),
  ]);
  const ticket = (await api.post('/api/v1/tickets', newTicket({ subject: 'Webhook out' }))).body.data;
  const [execution] = await finishedExecutions(api, workflowId, 1, 30_000);
  return { execution, ticket };
}

describe('http_request action', () => {
  it('retries a 503 with backoff and the same Idempotency-Key, then records the status and a bounded excerpt', async () => {
    seen.length = 0;
    script = [503, 503];
    const { execution, ticket } = await runHttpWorkflow(`${base}/hooks/ticket`);
    expect(execution.status).toBe('completed');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys).toEqual(new Set([`${execution.id}:notify`]));
    expect(seen[2]).toMatchObject({ method: 'POST', url: '/hooks/ticket', body: JSON.stringify({ subject: 'Webhook out' }) });
    expect(seen[2].headers['x-ticket']).toBe(ticket.id);
    const step = execution.steps.find((s: { nodeId: string }) => s.nodeId === 'notify');
    expect(step.result.status).toBe(200);
    expect(Buffer.byteLength(step.result.body)).toBeLessThanOrEqual(2048);
    expect(step.result.truncated).toBe(true);
  }, 60_000);

  it('does not retry a 4xx and fails the step with the status', async () => {
    seen.length = 0;
    script = [400];
    const { execution } = await runHttpWorkflow(`${base}/bad`);
    expect(execution.status).toBe('failed');
    expect(seen).toHaveLength(1);
    const step = execution.steps.find((s: { nodeId: string }) => s.nodeId === 'notify');
    expect(step).toMatchObject({ status: 'failed' });
    expect(step.error).toContain('HTTP 400');
  });

  it('refuses private addresses that are not allowed, with a clear error and no request', async () => {
    seen.length = 0;
    const { execution } = await runHttpWorkflow('http://10.0.0.1/internal');
    expect(execution.status).toBe('failed');
    const step = execution.steps.find((s: { nodeId: string }) => s.nodeId === 'notify');
    expect(step.error).toMatch(/Refused to connect to 10\.0\.0\.1.*DESKFLOW_HTTP_ALLOW/);
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[::ffff:169.254.169.254]/', 'http://[0:0:0:0:0:ffff:a00:1]/', 'http://[64:ff9b::a9fe:a9fe]/']) {
      const other = await runHttpWorkflow(url);
      expect(other.execution.steps.find((s: { nodeId: string }) => s.nodeId === 'notify').error, url).toContain('Refused');
    }
    expect(seen).toHaveLength(0);
  });

  it('re-checks the address of every redirect', async () => {
    const redirector = http.createServer((_req, res) => {
      res.writeHead(302, { location: 'http://192.168.1.1/elsewhere' });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { execution } = await runHttpWorkflow(`http://127.0.0.1:${(redirector.address() as AddressInfo).port}/start`);
      expect(execution.status).toBe('failed');
      expect(execution.steps.find((s: { nodeId: string }) => s.nodeId === 'notify').error).toContain('192.168.1.1');
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });
});

describe('the address guard', () => {
  it('classifies loopback, private, link-local and metadata addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.10', '169.254.169.254', '::1', '::', 'fe80::1', 'fd12::1', '0.0.0.0']) {
      expect(isRestricted(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(isRestricted(a), a).toBe(false);
  });

  it('sees the IPv4 address inside IPv6 spellings that reach it', () => {
    const embedded = ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::FFFF:A9FE:A9FE', '::ffff:10.0.0.1', '::7f00:1', '64:ff9b::a9fe:a9fe', '2002:c0a8:1::1', 'fe80::1%eth0'];
    for (const a of embedded) expect(isRestricted(a), a).toBe(true);
    for (const a of ['::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1']) expect(isRestricted(a), a).toBe(false);
    expect(inCidr('::ffff:7f00:1', '127.0.0.1')).toBe(true);
  });

  it('matches allow-list CIDRs', () => {
    expect(inCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inCidr('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inCidr('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(inCidr('::1', '::1/128')).toBe(true);
    expect(inCidr('10.0.0.1', 'example.com')).toBe(false);
  });
});
