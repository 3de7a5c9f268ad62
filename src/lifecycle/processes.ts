import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * What the operating system says about a process, by pid. A pid alone proves nothing (pids are
 * reused), so callers compare the command line with what they expect before acting on it.
 * Linux answers from /proc; elsewhere `ps` does.
 */
export type ProcessInfo = { pid: number; parent: number; command: string };

const hasProc = fs.existsSync('/proc/self/stat');

/** The live process under `pid`, or null when none runs (an exited, unreaped one counts as gone). */
export function processInfo(pid: number): ProcessInfo | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return hasProc ? fromProc(pid) : fromPs(pid);
}

function fromProc(pid: number): ProcessInfo | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may itself hold spaces and parentheses.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return { pid, parent: Number(parent), command };
  } catch {
    return null;
  }
}

function fromPs(pid: number): ProcessInfo | null {
  try {
    const out = execFileSync('ps', ['-o', 'stat=,ppid=,command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const match = /^(\S+)\s+(\d+)\s+(.*)$/.exec(out);
    if (!match || match[1]!.startsWith('Z')) return null;
    return { pid, parent: Number(match[2]), command: match[3]! };
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks a process to stop with `signal` (and SIGCONT, in case it was stopped), waits until it is
 * gone, and kills it after `timeoutMs`. Only for a pid whose command line the caller checked.
 */
export async function stopProcess(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<'stopped' | 'killed'> {
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone already */
    }
  };
  send(signal);
  send('SIGCONT');
  const deadline = Date.now() + timeoutMs;
  while (processInfo(pid)) {
    if (Date.now() > deadline) {
      send('SIGKILL');
      while (processInfo(pid)) await sleep(50);
      return 'killed';
    }
    await sleep(50);
  }
  return 'stopped';
}
