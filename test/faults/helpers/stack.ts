import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { inspectEmbeddedPostgres, startEmbeddedPostgres } from '../../../src/db/embedded-postgres.ts';
import { startDevServer } from '../../../temporal/dev-server.ts';
import { freePort } from '../../helpers/ports.ts';
import { activeWorkflow, DeskflowRun, eventually, getJson, postWithKey, repoRoot, type Installation, type KeyedWrite } from './deskflow.ts';
import { allProcesses, isRunning, waitUntilGone, type Proc, type ProcessTracker } from './processes.ts';

/**
 * Deskflow as an operator runs it in production, every part a process of its own that a fault
 * test can kill by pid and start again: PostgreSQL, a Temporal dev server (its state in a
 * SQLite file, so it survives a restart), `npm run start:api` and `npm run start:worker`.
 */
export class Stack {
  readonly inst: Installation;
  readonly databaseUrl: string;
  private readonly tracker: ProcessTracker;
  private readonly pgPort: number;
  private readonly temporalPort: number;

  private constructor(inst: Installation, tracker: ProcessTracker, pgPort: number, temporalPort: number, databaseUrl: string) {
    this.inst = inst;
    this.tracker = tracker;
    this.pgPort = pgPort;
    this.temporalPort = temporalPort;
    this.databaseUrl = databaseUrl;
  }

  api!: DeskflowRun;
  worker!: DeskflowRun;
  apiKey!: string;

  static async start(inst: Installation, tracker: ProcessTracker): Promise<Stack> {
    const pgPort = await freePort();
    const temporalPort = await freePort();
    const pg = await startEmbeddedPostgres({ dataDir: path.join(inst.dataDir, 'pg'), port: pgPort });
    const stack = new Stack(inst, tracker, pgPort, temporalPort, pg.url);
    await stack.startTemporal();
    stack.api = stack.run('start:api');
    await stack.api.waitFor(/Deskflow API listening/);
    const workspace = stack.admin(['workspace', 'create', '--name', 'Faults', '--json']);
    stack.apiKey = stack.admin(['key', 'create', '--workspace', workspace.id, '--name', 'faults', '--json']).key;
    stack.worker = stack.run('start:worker');
    await stack.worker.waitFor(/Deskflow worker running/);
    return stack;
  }

  get url(): string {
    return this.inst.baseUrl;
  }

  private run(script: 'start:api' | 'start:worker'): DeskflowRun {
    return new DeskflowRun(this.inst, script, this.tracker, {
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: `127.0.0.1:${this.temporalPort}`,
    });
  }

  /** The admin CLI as an operator runs it, against this stack's database. */
  private admin(args: string[]): any {
    const out = execFileSync('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: repoRoot,
      env: { ...this.inst.env, DATABASE_URL: this.databaseUrl },
      encoding: 'utf8',
    });
    return JSON.parse(out);
  }

  /** SIGKILLs the worker process (npm's node child) and starts `npm run start:worker` again. */
  async killWorker(): Promise<void> {
    const procs = this.worker.processes();
    process.kill(this.worker.node().pid, 'SIGKILL');
    await this.worker.exited;
    await waitUntilGone(procs, 10_000);
  }

  async startWorker(): Promise<void> {
    this.worker = this.run('start:worker');
    await this.worker.waitFor(/Deskflow worker running/);
  }

  /** The postmaster and its backends, SIGKILLed: a crash, not a shutdown. */
  async killPostgres(): Promise<void> {
    const found = inspectEmbeddedPostgres(path.join(this.inst.dataDir, 'pg'));
    if (found.kind !== 'running') throw new Error(`PostgreSQL is not running (${found.kind})`);
    const procs = allProcesses().filter((p) => p.pid === found.pid || p.parent === found.pid);
    this.tracker.track(procs);
    for (const p of procs) process.kill(p.pid, 'SIGKILL');
    await waitUntilGone(procs, 10_000);
  }

  async startPostgres(): Promise<void> {
    await startEmbeddedPostgres({ dataDir: path.join(this.inst.dataDir, 'pg'), port: this.pgPort });
    this.trackPostgres();
  }

  async killTemporal(): Promise<void> {
    const procs = this.temporalProcesses();
    if (procs.length === 0) throw new Error('the Temporal dev server is not running');
    for (const p of procs) process.kill(p.pid, 'SIGKILL');
    await waitUntilGone(procs, 10_000);
  }

  async startTemporal(): Promise<void> {
    await startDevServer({
      port: this.temporalPort,
      uiPort: null,
      dbFile: path.join(this.inst.dataDir, 'temporal.db'),
      cliPath: process.env.TEMPORAL_CLI_PATH,
    });
    this.tracker.track(this.temporalProcesses());
    this.trackPostgres();
  }

  private temporalProcesses(): Proc[] {
    const dbFile = path.join(this.inst.dataDir, 'temporal.db');
    return allProcesses().filter((p) => p.command.includes(' start-dev ') && p.command.includes(` --db-filename ${dbFile} `));
  }

  private trackPostgres(): void {
    const found = inspectEmbeddedPostgres(path.join(this.inst.dataDir, 'pg'));
    if (found.kind === 'running') this.tracker.track(allProcesses().filter((p) => p.pid === found.pid));
  }

  /** Stops Deskflow's processes with SIGTERM; the tracker kills PostgreSQL and the dev server after the test. */
  async stop(): Promise<void> {
    for (const run of [this.worker, this.api]) {
      const procs = run.processes().filter(isRunning);
      if (procs.length === 0) continue;
      run.signal('npm', 'SIGTERM');
      await waitUntilGone(procs, 30_000);
    }
  }

  async activeWorkflow(name: string, triggerType: string, nodes: unknown[], edges: unknown[]): Promise<string> {
    return activeWorkflow(this.url, this.apiKey, name, triggerType, nodes, edges);
  }


  /** Creates a ticket, retrying (same Idempotency-Key) on 503 or a lost answer as a careful client does. */
  async createTicket(key: string): Promise<KeyedWrite> {
    return postWithKey(`${this.url}/api/v1/tickets`, this.apiKey, key, { subject: `Ticket ${key}`, customerEmail: 'casey@example.com', body: 'Hello' }, Date.now() + 180_000);
  }

  async customerReply(ticketId: string, key: string): Promise<KeyedWrite> {
    return postWithKey(`${this.url}/api/v1/tickets/${ticketId}/messages`, this.apiKey, key, { body: 'Yes, that fixed it.', senderEmail: 'casey@example.com' }, Date.now() + 180_000);
  }

  async executions(workflowId: string): Promise<Execution[]> {
    const all: Execution[] = [];
    for (;;) {
      const before = all.length > 0 ? `&before=${all[all.length - 1].id}` : '';
      const res = await getJson(`${this.url}/api/workflows/${workflowId}/executions?limit=200${before}`, this.apiKey);
      if (res.status !== 200) throw new Error(`executions: ${res.status} ${JSON.stringify(res.body)}`);
      all.push(...res.body.executions);
      if (res.body.executions.length < 200) return all;
    }
  }

  /** Waits until `count` executions of the workflow have ended; they are returned. */
  async allEnded(workflowId: string, count: number, timeoutMs: number): Promise<Execution[]> {
    return eventually(
      `${count} executions ended`,
      async () => {
        const all = await this.executions(workflowId);
        return all.length >= count && all.every((e) => e.completedAt !== null) ? all : undefined;
      },
      timeoutMs,
    );
  }

  async ticket(id: string): Promise<{ tags: string[]; replies: number }> {
    const [ticket, messages] = await Promise.all([
      getJson(`${this.url}/api/v1/tickets/${id}`, this.apiKey),
      getJson(`${this.url}/api/v1/tickets/${id}/messages`, this.apiKey),
    ]);
    return {
      tags: ticket.body.data.tags,
      replies: (messages.body.data as Array<{ direction: string }>).filter((m) => m.direction === 'outbound').length,
    };
  }
}

export type Execution = { id: string; ticketId: string | null; status: string; startedAt: string; completedAt: string | null; steps: Array<{ nodeId: string; status: string; result?: unknown }> };

/** Seconds from `since` until the first execution that ended after it: how long work stood still. */
export function secondsUntilWorkMoved(executions: Execution[], since: number): number | null {
  const after = executions.map((e) => (e.completedAt ? Date.parse(e.completedAt) : NaN)).filter((t) => t >= since);
  return after.length === 0 ? null : (Math.min(...after) - since) / 1000;
}
