import { spawn } from 'node:child_process';
import { spawnChild } from '../src/lifecycle/children.ts';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * Where `go install` puts a binary (GOBIN, GOPATH/bin) and where Deskflow's CI caches the
 * Temporal binaries it builds, for shells whose PATH lacks them.
 */
export function findInstalled(name: string): string | undefined {
  const home = process.env.HOME ?? '';
  const candidates = [
    process.env.GOBIN && path.join(process.env.GOBIN, name),
    path.join(process.env.GOPATH ?? path.join(home, 'go'), 'bin', name),
    path.join(home, '.cache', 'deskflow-ci', 'go', 'bin', name),
  ];
  return candidates.find((file): file is string => Boolean(file) && isExecutable(file as string));
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A long-running server process (a Temporal server or dev server) that this process started. */
export type ServiceProcess = {
  pid: number | undefined;
  /** Why it is not running (it could not be spawned, or it exited), or null while it runs. */
  gone: () => Error | null;
  /** The tail of what it printed, for error messages. */
  output: () => string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  stop: () => Promise<void>;
};

/**
 * Spawns a server program and collects its output. `asChild`: one of Deskflow's own processes,
 * in a session of its own and stopped when Deskflow dies (src/lifecycle/children.ts).
 */
export function spawnService(
  binary: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; asChild?: { stopSignal: NodeJS.Signals } } = {},
): ServiceProcess {
  const env = opts.env ?? process.env;
  const child = opts.asChild
    ? spawnChild(binary, args, { env, stopSignal: opts.asChild.stopSignal })
    : spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output.push(text);
    if (output.length > 50) output.shift();
    opts.log?.(text.trimEnd());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | null = null;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const running = () => spawnError === null && child.exitCode === null && child.signalCode === null;
  return {
    pid: child.pid,
    gone: () => spawnError ?? (running() ? null : new Error(`it exited with ${child.exitCode ?? child.signalCode}`)),
    output: () => output.join('').slice(-2000),
    stop: async () => {
      if (!running()) return;
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

/** Polls `ready` until it returns true; fails when the process is gone or after `timeoutMs`. */
export async function waitUntilReady(service: ServiceProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const gone = service.gone();
    if (gone) throw gone;
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no answer within ${timeoutMs / 1000} s`);
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
