import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from './search-attributes.ts';

export type DevServer = { address: string; uiUrl: string | null; stop: () => Promise<void> };

export type DevServerOptions = {
  port: number;
  /** null: headless. */
  uiPort: number | null;
  /** SQLite file for state that survives restarts; omitted: in memory. */
  dbFile?: string;
  /** The `temporal` CLI; found on PATH when not given. */
  cliPath?: string;
  namespace?: string;
  log?: (line: string) => void;
};

/**
 * A local Temporal dev server (the Temporal CLI's `server start-dev`) with Deskflow's search
 * attributes registered. Uses the `temporal` binary at `cliPath`, on PATH or where `go install`
 * puts it; where there is none, the Temporal SDK downloads the dev server (needs internet).
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = options.cliPath ?? findOnPath('temporal') ?? findInstalled();
  if (!binary) return startDownloadedDevServer(options);
  if (options.dbFile) fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--namespace', options.namespace ?? 'default',
    '--log-level', 'error',
    ...(options.uiPort === null ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    '--sqlite-pragma', 'journal_mode=WAL',
    '--sqlite-pragma', 'synchronous=OFF',
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output.push(text);
    if (output.length > 50) output.shift();
    options.log?.(text.trimEnd());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | null = null;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  try {
    await waitForPort(options.port, child, 60_000, () => spawnError);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`The Temporal dev server did not start on port ${options.port}: ${(err as Error).message}\n${output.join('').slice(-2000)}`);
  }
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    stop: () => stopChild(child, exited),
  };
}

async function startDownloadedDevServer(options: DevServerOptions): Promise<DevServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      ...(options.uiPort === null ? { ui: false } : { ui: true, uiPort: options.uiPort }),
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      namespace: options.namespace ?? 'default',
      searchAttributes: SEARCH_ATTRIBUTES,
    },
  });
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    stop: () => env.teardown(),
  };
}

/** Where `go install` (GOBIN, GOPATH/bin) and Deskflow's CI put the binary, for shells whose PATH lacks them. */
function findInstalled(): string | undefined {
  const home = process.env.HOME ?? '';
  const candidates = [
    process.env.GOBIN && path.join(process.env.GOBIN, 'temporal'),
    path.join(process.env.GOPATH ?? path.join(home, 'go'), 'bin', 'temporal'),
    path.join(home, '.cache', 'deskflow-ci', 'go', 'bin', 'temporal'),
  ];
  return candidates.find((file): file is string => Boolean(file) && isExecutable(file as string));
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number, failed: () => Error | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const error = failed();
    if (error) throw error;
    if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no answer within ${timeoutMs / 1000} s`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killed);
}
