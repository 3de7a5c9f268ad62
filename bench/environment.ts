import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.ts';
import { ensureDatabase, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate, openOrm } from '../src/db/orm.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import type { TemporalSettings } from '../temporal/client.ts';
import { freePort } from '../test/helpers/ports.ts';
import { dropDatabase } from './database.ts';
import { Child, childrenOf, repoRoot } from './processes.ts';
import type { ReaperPlan } from './reaper.ts';

export type Environment = {
  databaseUrl: string;
  /** "embedded PostgreSQL 18.1" or "DATABASE_URL (PostgreSQL …)". */
  databaseLabel: string;
  temporal: TemporalSettings;
  temporalLabel: string;
  /** A task queue of this run's own, so no other worker on a shared server takes its tasks. */
  taskQueue: string;
  /** Database connections per process: Deskflow's DB_POOL_MAX, which the ceilings use too. */
  poolMax: number;
  config: Config;
  logDir: string;
  /** The bench's own connections: seeding and watching the outbox and executions. */
  db: pg.Pool;
  /** Starts `node <args>` from the repository root; it is stopped by close() at the latest. */
  spawnNode: (name: string, args: string[], env: NodeJS.ProcessEnv) => Child;
  /** `node` arguments of a Deskflow process in the given role (`all`: `npm start`'s one process), with the flags `npm start` gives it. */
  serverArgs: (role: 'api' | 'worker' | 'all') => string[];
  /** Environment of a Deskflow process (`node src/server.ts api|worker`) on this run's database and Temporal. */
  deskflowEnv: (extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
  close: () => Promise<void>;
};

/**
 * The PostgreSQL and Temporal the run measures on: DATABASE_URL (a database of the run's own
 * is created on it and dropped afterwards) or an embedded PostgreSQL in a throwaway directory;
 * TEMPORAL_ADDRESS or an in-memory dev server; both on free ports. A reaper process stops what
 * was started should the bench itself be killed.
 */
export async function startEnvironment(progress: (line: string) => void): Promise<Environment> {
  const config = loadConfig(process.env);
  const runDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-bench-'));
  const logDir = path.join(runDir, 'logs');
  await fs.mkdir(logDir);
  const reaper = startReaper();
  const plan: ReaperPlan = { children: [], dirs: [runDir] };
  const children: Child[] = [];
  const stops: Array<() => Promise<void>> = [];
  const track = () => {
    plan.children = childrenOf().filter((c) => c.pid !== reaper.pid);
    reaper.send({ plan });
  };
  track();

  const close = async () => {
    for (const child of children.reverse()) await child.stop().catch(() => {});
    for (const stop of stops.reverse()) await stop().catch((err) => progress(`cleanup: ${String(err)}`));
    await fs.rm(runDir, { recursive: true, force: true }).catch(() => {});
    if (reaper.connected) {
      reaper.send({ done: true });
      reaper.disconnect();
    }
  };

  try {
    // Both start at once; each is registered for cleanup as soon as it runs, even if the other fails.
    const opening = await Promise.allSettled([openDatabase(config, runDir, plan, track), openTemporal(config, track)]);
    for (const opened of opening) if (opened.status === 'fulfilled') stops.push(opened.value.stop);
    const failed = opening.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    const [database, temporal] = opening.map((o) => (o as PromiseFulfilledResult<Opened>).value);
    track();
    progress(`database: ${database.label}; Temporal: ${temporal.label}`);

    const orm = await openOrm({ databaseUrl: database.url });
    await migrate(orm).finally(() => orm.close());
    const db = new pg.Pool({ connectionString: database.url, max: 4 });
    stops.push(() => db.end());

    const taskQueue = `deskflow-bench-${randomBytes(4).toString('hex')}`;
    return {
      databaseUrl: database.url,
      databaseLabel: database.label,
      temporal: { ...config.temporal, address: temporal.url },
      temporalLabel: temporal.label,
      taskQueue,
      poolMax: config.dbPoolMax,
      config,
      logDir,
      db,
      serverArgs: (role) => [...serverNodeFlags(), 'src/server.ts', ...(role === 'all' ? [] : [role])],
      spawnNode: (name, args, env) => {
        const child = Child.node(name, args, env, logDir);
        children.push(child);
        track();
        return child;
      },
      deskflowEnv: (extra = {}) => ({
        ...process.env,
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: temporal.url,
        TEMPORAL_TASK_QUEUE: taskQueue,
        RATE_LIMIT_PER_SECOND: '0',
        // No balancer to drain from: a process the bench stops stops at once.
        SHUTDOWN_DRAIN_SECONDS: '0',
        HOST: '127.0.0.1',
        DESKFLOW_DATA_DIR: path.join(runDir, 'data'),
        ...extra,
      }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function startReaper(): ChildProcess {
  const reaper = spawn(process.execPath, [path.join(repoRoot, 'bench', 'reaper.ts')], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  reaper.unref();
  reaper.channel?.unref();
  return reaper;
}

/** A started (or given) server: its address, a label for the report, and how to stop it. */
type Opened = { url: string; label: string; stop: () => Promise<void> };

async function openDatabase(config: Config, runDir: string, plan: ReaperPlan, started: () => void): Promise<Opened> {
  if (config.databaseUrl) {
    const name = `deskflow_bench_${process.pid}_${Date.now().toString(36)}`;
    const url = new URL(config.databaseUrl);
    url.pathname = `/${name}`;
    plan.database = { serverUrl: config.databaseUrl, name };
    await ensureDatabase(config.databaseUrl, name);
    return {
      url: url.toString(),
      label: `DATABASE_URL (${await serverVersion(config.databaseUrl)}), database ${name}`,
      stop: () => dropDatabase(config.databaseUrl!, name),
    };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: path.join(runDir, 'pg'), port: await freePort() });
  started();
  return { url: embedded.url, label: `embedded ${await serverVersion(embedded.url)}`, stop: embedded.stop };
}

async function openTemporal(config: Config, started: () => void): Promise<Opened> {
  if (config.temporal.address) return { url: config.temporal.address, label: `TEMPORAL_ADDRESS ${config.temporal.address}`, stop: async () => {} };
  const dev = await startDevServer({ port: await freePort(), uiPort: null, cliPath: config.temporal.cliPath, namespace: config.temporal.namespace });
  started();
  return { url: dev.address, label: `dev server (in memory) on ${dev.address}`, stop: dev.stop };
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return `PostgreSQL ${rows[0].server_version.split(' ')[0]}`;
  } finally {
    await client.end();
  }
}

/** The node flags of package.json's `start` script (`node <flags> src/server.ts`): the bench runs Deskflow as it is run. */
function serverNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const flags = /\bnode((?: --\S+)*) src\/server\.ts/.exec(pkg.scripts.start);
  if (!flags) throw new Error('package.json: the start script does not run node src/server.ts');
  return flags[1].trim().split(' ').filter(Boolean);
}
