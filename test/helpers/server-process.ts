import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from '../../src/db/embedded-postgres.ts';
import { migrate, openOrm } from '../../src/db/orm.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type ServerProcess = {
  pid: number;
  /** Everything it wrote so far, stdout and stderr interleaved as they came. */
  output: () => string;
  /** Resolves with the match once the output matches; rejects after `timeoutMs` or when the process exits first. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  signal: (signal: NodeJS.Signals) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves once it has exited. */
  stop: (timeoutMs?: number) => Promise<void>;
};

/**
 * `node src/server.ts [mode]` as a process of its own, as `npm start` runs it (of the checkout
 * in `cwd`: another release's, say). `env` entries replace the inherited ones; `undefined`
 * removes one.
 */
export function startServerProcess(env: Record<string, string | undefined>, mode?: 'api' | 'worker', cwd = repoRoot): ServerProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_SECONDS: '0' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = spawn(process.execPath, ['--max-semi-space-size=8', '--heap-growing-percent=100', 'src/server.ts', ...(mode ? [mode] : [])], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const listener of listeners) listener();
  });
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) return done(() => resolve(match));
        if (gone) return done(() => reject(new Error(`the server exited before its output matched ${pattern}:\n${output}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  return {
    pid: child.pid!,
    output: () => output,
    waitFor,
    signal: (signal) => {
      if (!gone) child.kill(signal);
    },
    exited,
    stop: async (timeoutMs = 30_000) => {
      if (gone) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * A database of one test file's own, migrated, on the run's PostgreSQL: for a whole Deskflow
 * process, whose relay would otherwise deliver the events of every other test file.
 */
export async function ownDatabase(suffix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const shared = new URL(inject('databaseUrl'));
  const database = `${shared.pathname.slice(1)}_${suffix}`;
  const serverUrl = new URL('/postgres', shared).toString();
  await ensureDatabase(serverUrl, database);
  const url = new URL(`/${database}`, shared).toString();
  const orm = await openOrm({ databaseUrl: url, poolMax: 2 });
  await migrate(orm);
  await orm.close();
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists "${database}" with (force)`).finally(() => client.end());
    },
  };
}
