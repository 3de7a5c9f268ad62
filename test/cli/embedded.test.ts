import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { canConnect } from '../../temporal/processes.ts';
import { freePort } from '../helpers/ports.ts';
import { admin, jsonOutput, migrateCli, runNode, UUID } from './run-cli.ts';

/**
 * The zero-config path: no DATABASE_URL, so the CLI uses the embedded PostgreSQL of
 * DESKFLOW_DATA_DIR. On a fresh directory it initialises the cluster, migrates, runs the
 * command and stops the cluster again; a cluster that is already running (the server's) is
 * reused and left running.
 */
let dataDir: string;
let env: Record<string, string | undefined>;
let port: number;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-cli-'));
  port = await freePort();
  env = { DATABASE_URL: undefined, DESKFLOW_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), LOG_LEVEL: 'debug' };
});
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function expectClusterStopped(): Promise<void> {
  expect(await canConnect(port)).toBe(false);
  await expect(fs.access(path.join(dataDir, 'postgres', 'postmaster.pid'))).rejects.toThrow();
}

describe('admin CLI on the embedded PostgreSQL', () => {
  it('initialises a fresh data dir, runs, stops the cluster, and reuses the data next time', { timeout: 180_000 }, async () => {
    // Fresh directory: init + start + migrate + command + stop. Debug logs (Postgres lines
    // included) must all go to stderr: stdout is the one JSON object.
    const first = await admin(['workspace', 'create', '--name', 'Embedded', '--json'], env, 120_000);
    const workspace = jsonOutput(first);
    expect(workspace).toEqual({ id: expect.stringMatching(UUID), name: 'Embedded' });
    expect(first.stderr).toContain('migrations applied');
    // Which database it is about to create is said first, so that nobody gets a second one unawares.
    expect(first.stderr).toContain(`No database in ${dataDir} yet: creating a new embedded PostgreSQL there (port ${port}).`);
    await fs.access(path.join(dataDir, 'postgres', 'PG_VERSION'));
    await expectClusterStopped();

    // Second run on the same data: the workspace created before is found.
    const second = await admin(['key', 'create', '--workspace', workspace.id as string, '--json'], env, 120_000);
    const key = jsonOutput(second);
    expect(second.stderr).toContain(`The embedded PostgreSQL of ${dataDir} is not running: starting it on port ${port} for this command`);
    expect(key).toEqual({ id: expect.stringMatching(UUID), key: expect.stringMatching(/^dfk_/) });
    await expectClusterStopped();

    // Nothing left to migrate.
    expect(jsonOutput(await migrateCli(['--json'], env, 120_000))).toEqual({ applied: [] });
    await expectClusterStopped();

    // A cluster already running (as under `npm start`) is reused and left running.
    const running = await startEmbeddedPostgres({ dataDir, port });
    try {
      expect(running.created).toBe(false);
      // Found on the port it runs on, whatever EMBEDDED_PG_PORT says here.
      const otherPort = await freePort();
      const addition = await admin(
        ['member', 'add', '--workspace', workspace.id as string, '--user', 'agent-1', '--json'],
        { ...env, EMBEDDED_PG_PORT: String(otherPort) },
        120_000,
      );
      expect(jsonOutput(addition)).toEqual({ workspaceId: workspace.id, userId: 'agent-1', role: 'member' });
      expect(addition.stderr).toContain(`Using the embedded PostgreSQL of ${dataDir}, run by process ${process.pid} on port ${port}.`);
      // Said once: not again by the embedded PostgreSQL's own note (LOG_LEVEL=debug keeps that one, as a debug line).
      const notices = addition.stderr.split('\n').filter((line) => /using the embedded postgresql/i.test(line) && !line.includes('"level":"debug"'));
      expect(notices).toEqual([`Using the embedded PostgreSQL of ${dataDir}, run by process ${process.pid} on port ${port}.`]);
      expect(await canConnect(port)).toBe(true);
      expect(await canConnect(otherPort)).toBe(false);

      // The CLI never creates the server's `default` workspace: only the one made above exists.
      const db = new pg.Client({ connectionString: running.url });
      await db.connect();
      try {
        const workspaces = await db.query('select id, name from workspaces');
        expect(workspaces.rows).toEqual([{ id: workspace.id, name: 'Embedded' }]);
        const keys = await db.query('select id from api_keys');
        expect(keys.rows).toEqual([{ id: key.id }]);
      } finally {
        await db.end();
      }
    } finally {
      await running.stop();
    }
    await expectClusterStopped();
  });

  it('stops the cluster it is starting when it gets SIGTERM, and exits 143', { timeout: 120_000 }, async () => {
    let signalled = false;
    // LOG_LEVEL=debug: the first Postgres log line on stderr means the cluster is starting.
    const result = await runNode('src/cli/admin.ts', ['workspace', 'create', '--name', 'Interrupted', '--json'], env, 90_000, (stderr, child) => {
      if (!signalled && stderr.includes('"msg":"postgres"')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    expect(signalled).toBe(true);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: interrupted (SIGTERM); shutting down.');
    await expectClusterStopped();
  });
});
