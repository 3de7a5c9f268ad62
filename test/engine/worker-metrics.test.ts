import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnWorker } from '../helpers/worker-process.ts';
import { activeWorkflow, finishedExecutions, openTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { actionNode } from '../helpers/graphs.ts';

// docs/observability.md, "Worker metrics": with TEMPORAL_METRICS_PORT the Temporal SDK serves the worker's own
// metrics (temporal_…) in Prometheus format, and GET /metrics of a process that also runs the
// worker adds them. The worker runs in a process of its own here, its runtime installed as the
// server installs it (the test process has one already, and a process has only one).

const app = useEngineApp({ worker: false });
let child: ChildProcess | null = null;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await freePort();
  child = await spawnWorker(app, { TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${metricsPort}` });
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** A run of a one-step workflow through the worker process. */
async function runOnce(): Promise<void> {
  const { api } = await engineWorkspace(app);
  const workflowId = await activeWorkflow(api, 'manual', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'metered' })], 'Tag it');
  const ticketId = await openTicket(api);
  expect((await api.post(`/api/workflows/${workflowId}/trigger`, { ticketId })).status).toBe(202);
  const [execution] = await finishedExecutions(api, workflowId, 1);
  expect(execution.status).toBe('completed');
}

describe('the Temporal SDK worker metrics', () => {
  it('are served on the configured port, temporal_-prefixed, labelled with the task queue', async () => {
    await runOnce();
    const queue = `task_queue="${app.taskQueue}"`;
    // The SDK exports its counters periodically: wait for the completed run to show.
    const text = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      const body = await res.text();
      return res.status === 200 && new RegExp(`^temporal_workflow_completed\\{[^}]*${queue}`, 'm').test(body) ? body : undefined;
    }, 30_000, 'temporal_workflow_completed on the exporter');
    expect(text).toMatch(/^# TYPE temporal_\w+ (counter|gauge|histogram)$/m);
    expect(text).toMatch(new RegExp(`^temporal_workflow_task_execution_latency_bucket\\{[^}]*${queue}`, 'm'));
    expect(text).toMatch(new RegExp(`^temporal_worker_task_slots_available\\{[^}]*${queue}`, 'm'));
  });

  it('are added to GET /metrics of a process whose worker exports them, which still answers when the exporter does not', async () => {
    const serve = async (temporalMetricsUrl: string) => {
      const koa = createApp({
        orm: app.orm,
        config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' },
        logger: createLogger('silent'),
        temporalMetricsUrl,
      });
      const server: Server = await new Promise((resolve) => {
        const s = koa.listen(0, '127.0.0.1', () => resolve(s));
      });
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
        expect(res.status).toBe(200);
        return await res.text();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    };
    const merged = await serve(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(merged).toMatch(/^# TYPE nodejs_heap_size_used_bytes gauge$/m);
    expect(merged).toMatch(/^deskflow_executions\{status="completed"\} \d+$/m);
    expect(merged).toMatch(/^temporal_worker_task_slots_available\{/m);

    const unreachable = await serve(`http://127.0.0.1:${await freePort()}/metrics`);
    expect(unreachable).toMatch(/^deskflow_executions\{status="completed"\} \d+$/m);
    expect(unreachable).not.toMatch(/^temporal_/m);
  });
});
