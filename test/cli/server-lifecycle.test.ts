import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm.ts';
import { processInfo } from '../../src/lifecycle/processes.ts';
import { createWorkspace } from '../helpers/app.ts';
import { EventStreamClient } from '../helpers/event-stream.ts';
import { freePort } from '../helpers/ports.ts';
import { ownDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

/**
 * docs/operations.md, "Starting and stopping" and "Running in production": how a Deskflow process stops behind a load
 * balancer (drain, then stop), and that a second `npm start` on the same data directory is
 * refused before it touches anything. Real processes (`node src/server.ts`), as npm runs them.
 */
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

const start = (env: Record<string, string | undefined>, mode?: 'api') => {
  const server = startServerProcess(env, mode);
  servers.push(server);
  return server;
};

/** `at`: when the request was sent; `answeredAt`: when its answer (or refusal) came. */
type Seen = { at: number; answeredAt: number; status: number | 'refused'; connection?: string | null };

/** GETs `url` every `everyMs` until stopped; each answer (or refused connection) with its time. */
function poll(url: string, everyMs: number, headers: Record<string, string> = {}) {
  const seen: Seen[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      try {
        const res = await fetch(url, { headers, signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        seen.push({ at, answeredAt: Date.now(), status: res.status, connection: res.headers.get('connection') });
      } catch {
        seen.push({ at, answeredAt: Date.now(), status: 'refused' });
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

describe('SIGTERM behind a load balancer', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
  });
  afterAll(() => orm?.close());

  it('answers /readyz with 503 at once, serves requests for SHUTDOWN_DRAIN_SECONDS, then stops in order', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // The API alone: its relay-free process on the run's database and Temporal server.
    const server = start(
      { DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress'), PORT: String(port), HOST: '127.0.0.1', SHUTDOWN_DRAIN_SECONDS: '2' },
      'api',
    );
    await server.waitFor(/Deskflow API listening/);
    const ws = await createWorkspace(orm);
    const readyz = poll(`${baseUrl}/readyz`, 50);
    const tickets = poll(`${baseUrl}/api/v1/tickets`, 50, { authorization: `Bearer ${ws.key}` });
    // An open event stream (the console's) must not hold the stop up.
    const stream = await EventStreamClient.open(baseUrl, { key: ws.key });
    let streamEndedAt = 0;
    void stream.ended.then(() => (streamEndedAt = Date.now()));
    // Serving and ready, as the balancer sees it, before the signal.
    while (readyz.seen.filter((s) => s.status === 200).length < 5 || tickets.seen.filter((s) => s.status === 200).length < 5) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const signalledAt = Date.now();
    server.signal('SIGTERM');
    const { code } = await server.exited;
    const exitedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all([readyz.stop(), tickets.stop()]);
    expect(code).toBe(0);

    // Answered before the signal: ready. (One sent just before it may be answered after it, draining.)
    const before = readyz.seen.filter((s) => s.answeredAt < signalledAt);
    expect(before.length).toBeGreaterThan(3);
    expect(before.filter((s) => s.status !== 200), 'answers before the signal that were not 200').toEqual([]);
    // After the signal: 503 until the process is gone, never a 200, then refused.
    const after = readyz.seen.filter((s) => s.at > signalledAt + 20);
    const statuses = after.map((s) => s.status);
    const firstRefused = statuses.indexOf('refused');
    expect(firstRefused, JSON.stringify(statuses)).toBeGreaterThan(10);
    expect(new Set(statuses.slice(0, firstRefused))).toEqual(new Set([503]));
    expect(new Set(statuses.slice(firstRefused))).toEqual(new Set(['refused']));
    const refusedAt = after[firstRefused].at;
    expect(refusedAt - signalledAt).toBeGreaterThanOrEqual(1_900);

    // Requests were answered all along the drain, each telling the client to reconnect elsewhere.
    const drained = tickets.seen.filter((s) => s.at > signalledAt + 20 && s.at < refusedAt - 200);
    expect(drained.length).toBeGreaterThan(10);
    expect(drained.every((s) => s.status === 200 && s.connection === 'close'), JSON.stringify(drained)).toBe(true);

    // The stream was served through the drain, then ended by the stop: the process went within
    // moments of the drain (closing the server waits up to 5 s for connections still open).
    expect(streamEndedAt - signalledAt).toBeGreaterThanOrEqual(1_900);
    expect(streamEndedAt).toBeLessThanOrEqual(exitedAt + 100);
    expect(exitedAt - signalledAt).toBeLessThan(2_000 + 2_500);

    const output = server.output();
    expect(output).toContain('"msg":"draining: /readyz answers 503, requests are still served","drainSeconds":2');
    expect(output.indexOf('"msg":"draining')).toBeLessThan(output.indexOf('"msg":"stopped"'));
  }, 120_000);
});

describe('a second npm start on the same data directory', () => {
  let dataDir: string;
  let database: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-second-'));
    database = await ownDatabase('second_start');
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** The dev servers running on this data directory's state. */
  const devServers = async () => {
    const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
    return pids.map((pid) => processInfo(pid)).filter((p) => p && p.command.includes(' start-dev ') && p.command.includes(`${dataDir}/temporal.sqlite`));
  };

  it('is refused before it touches anything, naming the pid of the one that runs there; after that one is killed, the next start runs', async () => {
    // The data directory holds the dev server's state here (the database is DATABASE_URL's): what a second start would attach to.
    const env = async () => ({
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: undefined,
      DESKFLOW_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
    });
    const first = start(await env());
    await first.waitFor(/Deskflow worker running/, 90_000);
    expect(await devServers()).toHaveLength(1);

    const second = start(await env());
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toBe(
      `Deskflow could not start: another Deskflow (pid ${first.pid}) runs on the data directory ${dataDir}; stop it first (kill ${first.pid}), or give this one its own DESKFLOW_DATA_DIR\n`,
    );
    // Nothing was started or attached to: one dev server, the first still whole.
    expect(await devServers()).toHaveLength(1);
    expect(first.output()).not.toMatch(/shutting down/);

    // Killed outright, the first leaves its pid file behind: the next start takes it over.
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    const third = start(await env());
    await third.waitFor(/Deskflow worker running/, 90_000);
    expect(await devServers()).toHaveLength(1);
    expect(JSON.parse(await fs.readFile(path.join(dataDir, 'deskflow.pid'), 'utf8'))).toEqual({ pid: third.pid });
    await third.stop();
    await expect(fs.access(path.join(dataDir, 'deskflow.pid'))).rejects.toThrow();
  }, 240_000);
});
