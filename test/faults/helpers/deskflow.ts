import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { activateWorkflow, type Caller } from '../../helpers/api.ts';
import { actionNode, chain, triggerNode } from '../../helpers/graphs.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { freePort } from '../../helpers/ports.ts';
import { processTree, type Proc, type ProcessTracker } from './processes.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * One Deskflow installation for the fault tests: a data directory of its own and free ports on
 * 127.0.0.1 for the API, the embedded PostgreSQL, the Temporal dev server and its UI. Several
 * starts of one installation share the data (a cluster is initialised once per installation).
 */
export type Installation = {
  dataDir: string;
  port: number;
  pgPort: number;
  devPort: number;
  uiPort: number;
  baseUrl: string;
  /** The environment of `npm run …`: the embedded defaults, nothing inherited that changes them. */
  env: NodeJS.ProcessEnv;
  remove: () => Promise<void>;
};

export async function newInstallation(): Promise<Installation> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-faults-'));
  const [port, pgPort, devPort, uiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|TEMPORAL_|EMBEDDED_PG_|DESKFLOW_|PORT$|HOST$|LOG_LEVEL$|npm_)/.test(name)) delete env[name];
  }
  Object.assign(env, {
    DESKFLOW_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    EMBEDDED_PG_PORT: String(pgPort),
    TEMPORAL_DEV_PORT: String(devPort),
    TEMPORAL_UI_PORT: String(uiPort),
    LOG_LEVEL: 'info',
    // No load balancer to drain for: stop at once (the drain has a test of its own).
    SHUTDOWN_DRAIN_SECONDS: '0',
    ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
  });
  return {
    dataDir,
    port,
    pgPort,
    devPort,
    uiPort,
    baseUrl: `http://127.0.0.1:${port}`,
    env,
    remove: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
}

export type Script = 'start' | 'start:api' | 'start:worker';

/**
 * `npm run <script>` as an operator runs it, in a process group of its own (as a terminal
 * would put it), with its output collected. Every process it starts is tracked for cleanup.
 */
export class DeskflowRun {
  readonly npm: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private text = '';
  private readonly tracker: ProcessTracker;

  constructor(installation: Installation, script: Script, tracker: ProcessTracker, env: NodeJS.ProcessEnv = {}) {
    this.tracker = tracker;
    this.npm = spawn('npm', ['run', '--silent', script], {
      cwd: repoRoot,
      env: { ...installation.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tracker.track([{ pid: this.npm.pid!, parent: process.pid, command: `npm run --silent ${script}` }]);
    for (const stream of [this.npm.stdout!, this.npm.stderr!]) stream.setEncoding('utf8').on('data', (chunk: string) => (this.text += chunk));
    this.exited = new Promise((resolve) => this.npm.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Everything printed so far, stdout and stderr. */
  get output(): string {
    return this.text;
  }

  /** Resolves once the output matches `pattern`; fails (with the output) after `timeoutMs` or on exit. */
  async waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let gone = false;
    void this.exited.then(() => (gone = true));
    for (;;) {
      const match = this.text.match(pattern);
      if (match) return match;
      if (gone || Date.now() > deadline) {
        throw new Error(`${gone ? 'exited' : 'timed out'} before ${pattern}; output:\n${this.text.slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** npm, node and everything below (PostgreSQL, the dev server), recorded for cleanup. */
  processes(): Proc[] {
    return this.tracker.track(processTree(this.npm.pid!));
  }

  /** The node process running src/server.ts. */
  node(): Proc {
    const node = this.processes().find((p) => /^\S*node\S*( --\S+)* src\/server\.ts/.test(p.command));
    if (!node) throw new Error(`no node process under npm; output:\n${this.text.slice(-2000)}`);
    return node;
  }

  signal(target: 'npm' | 'node' | 'group', signal: NodeJS.Signals): void {
    const pid = target === 'npm' ? this.npm.pid! : target === 'node' ? this.node().pid : -this.npm.pid!;
    process.kill(pid, signal);
  }
}

/**
 * A request whose last line is held back: the server has begun reading it, so a shutdown does
 * not close its connection, and `finish()` sends the rest and resolves with the status line.
 */
export async function heldRequest(port: number, requestPath: string): Promise<{ finish: () => Promise<number> }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.write(`GET ${requestPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
  return {
    finish: () =>
      new Promise<number>((resolve, reject) => {
        const done = () => {
          const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
          socket.destroy();
          if (status) resolve(Number(status[1]));
          else reject(new Error(`no HTTP response: ${JSON.stringify(received)}`));
        };
        socket.once('close', done);
        socket.on('data', () => {
          if (/\r\n\r\n/.test(received)) done();
        });
        socket.write('\r\n');
      }),
  };
}

export async function getJson(url: string, key?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

export async function postJson(url: string, key: string, body: unknown, method = 'POST'): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Polls `check` until it returns a value other than undefined; fails after `timeoutMs`. */
export function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  return pollUntil(check, { timeoutMs, intervalMs: 250, timedOut: (last) => new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (${String(last)})` : ''}`) });
}

/** The client of the API steps (test/helpers/api.ts) on this module's requests, which give up after 10 s: a process may be down. */
export const apiOf = (baseUrl: string, key: string): Caller => ({
  get: (path) => getJson(baseUrl + path, key),
  post: (path, body) => postJson(baseUrl + path, key, body),
  patch: (path, body) => postJson(baseUrl + path, key, body, 'PATCH'),
});

/** Creates and activates a workflow of `nodes` and `edges` through the API; its id. */
export async function activeWorkflow(baseUrl: string, key: string, name: string, triggerType: string, nodes: unknown[], edges: unknown[]): Promise<string> {
  return activateWorkflow(apiOf(baseUrl, key), { name, triggerType, workflowJson: { nodes, edges } });
}

/** The trigger → add_tag graph the lifecycle and idempotency scenarios count runs with. */
export const tagNewTickets = (tag: string) => chain(triggerNode('ticket_created', 'start'), actionNode('tag', { actionType: 'add_tag', tag }));

/** What a client that retries a keyed write until it gets a 201 ends up with. */
export type KeyedWrite = { id: string; lostAnswers: number; replayed: boolean };

/**
 * POSTs `body` under `Idempotency-Key: key`, sending it again after every lost answer (socket
 * error, timeout) or 503 until it gets a 201, as a careful client does; any other answer fails.
 */
export async function postWithKey(url: string, apiKey: string, key: string, body: unknown, deadline: number): Promise<KeyedWrite> {
  let lostAnswers = 0;
  for (;;) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const answer: any = await res.json();
      if (res.status === 201) return { id: answer.data.id, lostAnswers, replayed: res.headers.get('idempotency-replayed') === 'true' };
      if (res.status !== 503) throw new Error(`${key}: ${res.status} ${JSON.stringify(answer)}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(`${key}:`)) throw err;
      lostAnswers += 1;
    }
    if (Date.now() > deadline) throw new Error(`${key}: no answer before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
