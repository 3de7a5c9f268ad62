import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineWorkspace, useEngineApp, type EngineApp } from '../helpers/engine.ts';
import { spawnWorker } from '../helpers/worker-process.ts';
import { activeWorkflow, finishedExecutions, openTicket, readMessages, stepOf } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// docs/contract.md §5/§8: a worker that dies mid-action loses nothing and doubles nothing. The worker
// runs in a process of its own and is SIGKILLed while its http_request is in flight; a fresh
// worker retries the action (same Idempotency-Key) and the run completes, its reply sent once.
// Temporal retries the killed activity only after its start-to-close timeout (15 s for
// http_request), and the workflow task waits out the dead worker's sticky queue: allow a minute.

/** A receiver of the workflow's webhook: holds the first request open (the worker dies meanwhile), answers the rest. */
function startReceiver() {
  const keys: string[] = [];
  let firstArrived!: () => void;
  const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
  const server = http.createServer((req, res) => {
    keys.push(String(req.headers['idempotency-key']));
    req.resume();
    if (keys.length === 1) {
      firstArrived();
      return; // never answered
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
  return { server, keys, arrived };
}

let child: ChildProcess | null = null;
const receiver = startReceiver();
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  receiver.server.closeAllConnections();
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
});
// No worker in this process for now: the runs go to the worker process.
const app = useEngineApp({ worker: false, httpAllow: ['127.0.0.1'] });

describe('a worker killed in the middle of an action', () => {
  it('is replaced by a fresh worker that finishes the run, each effect exactly once', async () => {
    const { api } = await engineWorkspace(app);
    const { port } = receiver.server.address() as AddressInfo;
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > notify > reply', [
      actionNode('notify', { actionType: 'http_request', method: 'POST', url: `http://127.0.0.1:${port}/hooks/{{ticket.id}}`, body: { subject: '{{ticket.subject}}' } }),
      actionNode('reply', { actionType: 'send_reply', body: 'Our on-call team has been notified.' }),
    ]);
    child = await spawnWorker(app, { DESKFLOW_HTTP_ALLOW: '127.0.0.1' });
    const ticketId = await openTicket(api);

    await receiver.arrived; // the action is in flight in the worker process
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await app.startWorker();

    const [execution] = await finishedExecutions(api, workflowId, 1, 55_000);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'notify')).toMatchObject({ status: 'completed', result: { status: 200, body: '{"received":true}' } });
    expect(stepOf(execution, 'reply')?.status).toBe('completed');

    const outbound = (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');
    expect(outbound.map((m) => m.body)).toEqual(['Our on-call team has been notified.']);
    // Each attempt of the action carried the same key, so the receiver can tell it is one request.
    expect(receiver.keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(receiver.keys)).toEqual(new Set([`${execution.id}:notify`]));
  }, 60_000);
});
