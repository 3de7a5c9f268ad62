import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../temporal/dev-server.ts';
import { activeWorkflow, DeskflowRun, eventually, getJson, heldRequest, newInstallation, postJson, tagNewTickets, type Installation } from './helpers/deskflow.ts';
import { isRunning, ProcessTracker, processesRunning, waitUntilGone, type Proc } from './helpers/processes.ts';

/**
 * The process lifecycle of Deskflow, on real processes: `npm run start…` on the embedded
 * defaults, signalled and killed by pid as an operator (or a supervisor, or a terminal) would.
 */
const tracker = new ProcessTracker();
afterEach(() => tracker.killAll());

const kind = (p: Proc) =>
  /^npm /.test(p.command) ? 'npm'
  : /node\S*( --\S+)* src\/server\.ts/.test(p.command) ? 'node'
  : /\/postgres -D /.test(p.command) ? 'postgres'
  : / server start-dev /.test(p.command) ? 'temporal'
  : p.command;

/** The one PostgreSQL and the one dev server of an installation, whoever started them. */
const clusters = (inst: Installation) => processesRunning(/\/postgres -D /, ` -D ${inst.dataDir}/postgres `);
const devServers = (inst: Installation) => processesRunning(/ server start-dev /, ` --db-filename ${inst.dataDir}/temporal.sqlite `);

async function startReady(inst: Installation, env: NodeJS.ProcessEnv = {}): Promise<DeskflowRun> {
  const run = new DeskflowRun(inst, 'start', tracker, { LOG_LEVEL: 'debug', ...env });
  await run.waitFor(/Deskflow API listening/);
  await eventually('/readyz 200', async () => ((await getJson(`${inst.baseUrl}/readyz`)).status === 200 ? true : undefined), 60_000);
  return run;
}

/** The shutdown steps in the order the node process logged them. */
const stoppedSteps = (output: string) => [...output.matchAll(/"msg":"stopped","step":"([^"]+)"/g)].map((m) => m[1]);

describe('npm start, stopped by a signal', () => {
  let inst: Installation;
  beforeAll(async () => {
    inst = await newInstallation();
  });
  afterAll(() => inst.remove());

  const cases = [
    ['npm', 'SIGTERM'],
    ['npm', 'SIGINT'],
    ['node', 'SIGTERM'],
    ['node', 'SIGINT'],
    ['group', 'SIGINT'],
    ['group', 'SIGTERM'],
  ] as const;

  it.each(cases)('%s gets %s: everything stops in order, nothing is left, /readyz answers 503 meanwhile', async (target, signal) => {
    const run = await startReady(inst);
    const procs = run.processes();
    expect(procs.map(kind).sort()).toEqual(['node', 'npm', 'postgres', 'temporal']);

    const held = await heldRequest(inst.port, '/readyz');
    run.signal(target, signal);
    await run.waitFor(/"msg":"shutting down"/, 10_000);
    expect(await held.finish()).toBe(503);

    expect((await waitUntilGone(procs, 60_000)).map(kind)).toEqual([]);
    expect(run.output).toContain(`"msg":"shutting down","reason":"${signal}"`);
    expect(stoppedSteps(run.output)).toEqual(['event streams', 'http', 'api keys', 'mail', 'relay', 'worker', 'temporal client', 'temporal dev server', 'orm', 'database']);
    expect(clusters(inst)).toEqual([]);
    expect(devServers(inst)).toEqual([]);
  });
});

describe('npm start after Deskflow was killed', () => {
  let inst: Installation;
  beforeAll(async () => {
    inst = await newInstallation();
  });
  afterAll(() => inst.remove());

  it('SIGKILL to node: its PostgreSQL and dev server stop by themselves; the next start runs one of each', async () => {
    const first = await startReady(inst);
    const children = first.processes().filter((p) => ['postgres', 'temporal'].includes(kind(p)));
    expect(children.map(kind).sort()).toEqual(['postgres', 'temporal']);
    process.kill(first.node().pid, 'SIGKILL');
    // Where the kernel can signal a parent's death (setpriv, Linux), the children follow at once.
    if (fs.existsSync('/usr/bin/setpriv')) expect((await waitUntilGone(children, 30_000)).map(kind)).toEqual([]);

    const second = await startReady(inst);
    expect(clusters(inst)).toHaveLength(1);
    expect(devServers(inst)).toHaveLength(1);
    const procs = second.processes();
    second.signal('node', 'SIGTERM');
    expect((await waitUntilGone(procs, 60_000)).map(kind)).toEqual([]);
  });

  it('children that outlived a killed Deskflow are found, stopped and replaced by the next start', async () => {
    const first = await startReady(inst);
    const children = first.processes().filter((p) => ['postgres', 'temporal'].includes(kind(p)));
    // Frozen, they cannot act on the parent-death signal: as on a system without one.
    for (const child of children) process.kill(child.pid, 'SIGSTOP');
    process.kill(first.node().pid, 'SIGKILL');
    await first.exited;
    expect(children.filter(isRunning)).toHaveLength(2);

    const second = await startReady(inst);
    expect(children.filter(isRunning)).toEqual([]);
    const [postgres, temporal] = [children.find((p) => kind(p) === 'postgres')!, children.find((p) => kind(p) === 'temporal')!];
    expect(second.output).toContain(`stopped the embedded PostgreSQL (pid ${postgres.pid}) that an earlier Deskflow left running`);
    expect(second.output).toContain(`stopped the Temporal dev server (pid ${temporal.pid}) that an earlier Deskflow left running`);
    expect(clusters(inst)).toHaveLength(1);
    expect(devServers(inst)).toHaveLength(1);

    const procs = second.processes();
    second.signal('group', 'SIGTERM');
    expect((await waitUntilGone(procs, 60_000)).map(kind)).toEqual([]);
  });
});

describe('Temporal unreachable at start', () => {
  let inst: Installation;
  let temporal: DevServer | null = null;
  beforeAll(async () => {
    inst = await newInstallation();
  });
  afterEach(async () => {
    await temporal?.stop();
    temporal = null;
  });
  afterAll(() => inst.remove());

  const address = () => `127.0.0.1:${inst.devPort}`;
  const startTemporal = async () => {
    temporal = await startDevServer({ port: inst.devPort, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });
  };

  it('npm start serves tickets, keeps trying to start the worker, and runs pending automations once Temporal answers', async () => {
    const run = new DeskflowRun(inst, 'start', tracker, { TEMPORAL_ADDRESS: address() });
    const [, key] = await run.waitFor(/API key \(shown once, store it now\):\s+(dfk_\S+)/);
    await run.waitFor(/Deskflow API listening/);
    expect(run.output).toMatch(/Workflow worker not started \(.+\); retrying in the background/);
    const readyz = await getJson(`${inst.baseUrl}/readyz`);
    expect(readyz.status).toBe(503);
    expect(readyz.body.error.details).toEqual([expect.objectContaining({ path: 'temporal' })]);

    const { nodes, edges } = tagNewTickets('seen-by-worker');
    const workflowId = await activeWorkflow(inst.baseUrl, key!, 'Tag new tickets', 'ticket_created', nodes, edges);
    const ticket = await postJson(`${inst.baseUrl}/api/v1/tickets`, key!, {
      subject: 'Waiting for the engine',
      customerEmail: 'casey@example.com',
      body: 'Hello',
    });
    expect(ticket.status).toBe(201);

    // It keeps trying on its own, one line per attempt.
    await run.waitFor(/"msg":"workflow worker not started; retrying","attempt":2/, 30_000);
    await startTemporal();
    await run.waitFor(/Deskflow worker running/, 60_000);
    const tags = await eventually(
      'the pending automation ran',
      async () => {
        const res = await getJson(`${inst.baseUrl}/api/v1/tickets/${ticket.body.data.id}`, key);
        return res.body.data.tags.includes('seen-by-worker') ? res.body.data.tags : undefined;
      },
      60_000,
    );
    expect(tags).toEqual(['seen-by-worker']);
    expect((await getJson(`${inst.baseUrl}/readyz`)).status).toBe(200);

    const procs = run.processes();
    run.signal('npm', 'SIGTERM');
    expect((await waitUntilGone(procs, 60_000)).map(kind)).toEqual([]);
  });

  it('start:worker does not give up either; start:api and start:worker share the embedded PostgreSQL', async () => {
    const env = { TEMPORAL_ADDRESS: address() };
    const api = new DeskflowRun(inst, 'start:api', tracker, env);
    await api.waitFor(/Deskflow API listening/);
    const worker = new DeskflowRun(inst, 'start:worker', tracker, env);
    await worker.waitFor(/"msg":"workflow worker not started; retrying","attempt":2/, 60_000);
    expect(worker.output).toMatch(/Workflow worker not started \(.+\); retrying in the background/);
    // One cluster: the worker process uses the one the API process runs.
    expect(clusters(inst)).toHaveLength(1);
    const apiNode = api.node().pid;
    expect(worker.output).toMatch(new RegExp(`"msg":"using the embedded PostgreSQL that process ${apiNode} runs \\(pid \\d+, port ${inst.pgPort}\\)"`));

    await startTemporal();
    await worker.waitFor(/Deskflow worker running/, 60_000);

    const workerProcs = worker.processes();
    worker.signal('node', 'SIGTERM');
    expect((await waitUntilGone(workerProcs, 60_000)).map(kind)).toEqual([]);
    // Not its cluster to stop: the API still answers from the database.
    expect((await getJson(`${inst.baseUrl}/readyz`)).status).toBe(200);
    expect(clusters(inst)).toHaveLength(1);

    const apiProcs = api.processes();
    api.signal('npm', 'SIGINT');
    expect((await waitUntilGone(apiProcs, 60_000)).map(kind)).toEqual([]);
    expect(clusters(inst)).toEqual([]);
  });
});
