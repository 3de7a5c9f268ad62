import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../helpers/poll.ts';
import { freePort } from '../helpers/ports.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { admin, jsonOutput } from './run-cli.ts';

/**
 * README "Quick start" as a new user meets it: the first start on the embedded PostgreSQL creates
 * a `default` workspace and prints its API key once. A taken port fails that start before the
 * workspace and its key exist; later starts, while no key has ever been used, say how to make one.
 * Real processes (`node src/server.ts api`, as `npm run start:api` runs it) on a data directory of their own.
 */
let dataDir: string;
let env: Record<string, string | undefined>;
let port: number;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-first-start-'));
  port = await freePort();
  env = {
    DATABASE_URL: undefined,
    DESKFLOW_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    PORT: String(port),
    HOST: '127.0.0.1',
  };
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const start = () => {
  const server = startServerProcess(env, 'api');
  servers.push(server);
  return server;
};

const NO_KEY_USED = 'No API key has been used on this database yet.';

describe('the first start on the embedded PostgreSQL', () => {
  it('fails on a taken port before creating the workspace, then prints the key once, then says how to make one until a key is used', { timeout: 300_000 }, async () => {
    // The port is taken: the start fails with the port named, and no key is printed (none exists).
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const refused = start();
    const exit = await refused.exited;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    expect(exit.code, refused.output()).toBe(1);
    expect(refused.output()).toContain(`Deskflow could not start: port ${port} is in use; set PORT`);
    expect(refused.output()).not.toContain('shown once');
    expect(refused.output()).not.toContain('Created workspace');

    // The port is free: this start is the first one that creates the workspace and shows its key.
    const first = start();
    const [, workspaceId] = await first.waitFor(/Created workspace "default" \(([0-9a-f-]{36})\)\./, 120_000);
    const [, key] = await first.waitFor(/API key \(shown once, store it now\):\s+(dfk_\S+)/);
    await first.waitFor(/Deskflow API listening/);
    expect(first.output()).not.toContain(NO_KEY_USED);
    await first.stop();

    // The key was never used: the next start says how to make one (it may have been lost).
    const second = start();
    await second.waitFor(/Deskflow API listening/, 120_000);
    expect(second.output()).toContain(`${NO_KEY_USED} If you did not keep the key printed at the first start, make one:`);
    expect(second.output()).toContain(`  npm run admin -- key create --workspace ${workspaceId}   (workspace "default")`);
    expect(second.output()).not.toContain('shown once');
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/tickets`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    // Its use is recorded after the answer: wait for it, through the admin CLI on the running database.
    await eventually(
      async () => {
        const keys = jsonOutput(await admin(['key', 'list', '--workspace', workspaceId, '--json'], env, 60_000)).keys as Array<{ lastUsedAt: string | null }>;
        return keys[0].lastUsedAt ?? undefined;
      },
      60_000,
      'the key use recorded',
    );
    await second.stop();

    // A key has been used: nothing more to say.
    const third = start();
    await third.waitFor(/Deskflow API listening/, 120_000);
    expect(third.output()).not.toContain(NO_KEY_USED);
    await third.stop();
  });
});
