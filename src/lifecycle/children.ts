import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { processInfo, stopProcess, type ProcessInfo } from './processes.ts';

/**
 * The processes Deskflow starts for itself (the embedded PostgreSQL, the Temporal dev server)
 * must neither be stopped behind its back nor outlive it:
 * - each runs in a session of its own, so a terminal's Ctrl-C (sent to the whole foreground
 *   group) reaches Deskflow alone, which stops them after its own work, in order;
 * - where util-linux's `setpriv` exists (Linux), each gets a parent-death signal: if Deskflow
 *   is killed outright, the kernel asks it to stop;
 * - each is recorded in the data directory (pid and parent pid), so that the next start finds
 *   one that outlived a killed Deskflow anyway (no setpriv, or still shutting down) and stops
 *   it before starting afresh, instead of failing on its port or lock file.
 */
export type ChildOptions = Pick<SpawnOptions, 'env' | 'uid' | 'gid'> & {
  /** The signal that asks this program for a clean shutdown; also its parent-death signal. */
  stopSignal: NodeJS.Signals;
};

export function spawnChild(binary: string, args: string[], options: ChildOptions): ChildProcess {
  const setpriv = parentDeathWrapper();
  const [file, argv] = setpriv ? [setpriv, ['--pdeathsig', options.stopSignal, '--', binary, ...args]] : [binary, args];
  return spawn(file, argv, {
    env: options.env,
    uid: options.uid,
    gid: options.gid,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

let wrapper: string | null | undefined;

/** setpriv execs the program in place (same pid); the kernel keeps the signal across that exec. */
function parentDeathWrapper(): string | null {
  if (wrapper !== undefined) return wrapper;
  wrapper = null;
  if (process.platform !== 'linux') return wrapper;
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const candidate = path.join(dir, 'setpriv');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      wrapper = candidate;
      break;
    } catch {
      /* not here */
    }
  }
  return wrapper;
}

type ChildRecord = { pid: number; parent: number };

/** Notes in `file` that `pid` runs as this process's child. */
export function recordChild(file: string, pid: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ pid, parent: process.pid } satisfies ChildRecord) + '\n');
}

/** Removes the record of `pid`, unless another process has recorded its own child meanwhile. */
export function forgetChild(file: string, pid: number): void {
  if (readRecord(file)?.pid === pid) fs.rmSync(file, { force: true });
}

function readRecord(file: string): ChildRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ChildRecord>;
    return Number.isInteger(record.pid) && Number.isInteger(record.parent) ? (record as ChildRecord) : null;
  } catch {
    return null;
  }
}

/**
 * A process from an earlier start that still runs: `in use` while the process that started it
 * is still its parent (a running server, or a CLI command), `left over` once that parent is
 * gone. `pid` comes from the record or, for programs that keep their own pid file, from there;
 * it counts only if its command line is the expected one (`isExpected`), never on trust.
 */
export type EarlierChild = { process: ProcessInfo; state: 'in use' | 'left over' };

export function findEarlierChild(recordFile: string, isExpected: (command: string) => boolean, pid?: number): EarlierChild | null {
  const record = readRecord(recordFile);
  const candidate = processInfo(pid ?? record?.pid ?? 0);
  if (!candidate || !isExpected(candidate.command)) return null;
  const inUse = record?.pid === candidate.pid && record.parent === candidate.parent;
  return { process: candidate, state: inUse ? 'in use' : 'left over' };
}

/** Stops a left-over child cleanly (its own stop signal), killing it only after `timeoutMs`. */
export async function stopLeftover(recordFile: string, leftover: EarlierChild, signal: NodeJS.Signals, timeoutMs: number) {
  const outcome = await stopProcess(leftover.process.pid, signal, timeoutMs);
  forgetChild(recordFile, leftover.process.pid);
  return outcome;
}
