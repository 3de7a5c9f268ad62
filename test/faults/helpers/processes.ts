import { processInfo, type ProcessInfo } from '../../../src/lifecycle/processes.ts';
import { everyProcess } from '../../helpers/proc.ts';

/**
 * The process table as the fault tests see it (Linux /proc): who runs, under which parent, with
 * which command line. A pid is only ever acted on together with the command line it had when
 * it was seen, so that a reused pid is never signalled.
 */
export type Proc = ProcessInfo;

export const allProcesses = (): Proc[] => everyProcess(processInfo);

/** `root` and everything below it (children in other sessions included), PostgreSQL's backends left out. */
export function processTree(root: number): Proc[] {
  const all = allProcesses();
  const byParent = new Map<number, Proc[]>();
  for (const p of all) byParent.set(p.parent, [...(byParent.get(p.parent) ?? []), p]);
  const tree: Proc[] = [];
  const queue = all.filter((p) => p.pid === root);
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (!p.command.startsWith('postgres: ')) tree.push(p);
    queue.push(...(byParent.get(p.pid) ?? []));
  }
  return tree;
}

/** True while the same process (same pid, same command line) runs. */
export function isRunning(p: Proc): boolean {
  const now = processInfo(p.pid);
  return now !== null && now.command === p.command;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until none of `procs` runs; resolves with those still running after `timeoutMs`. */
export async function waitUntilGone(procs: Proc[], timeoutMs: number): Promise<Proc[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = procs.filter(isRunning);
    if (running.length === 0 || Date.now() > deadline) return running;
    await sleep(100);
  }
}

/**
 * Every process a test started or saw its processes start. `killAll` (run after each test,
 * whatever its outcome) kills whichever of them still runs, so that no test leaves a server, a
 * database or a dev server behind, even one that a killed parent orphaned.
 */
export class ProcessTracker {
  private readonly seen = new Map<number, Proc>();

  track(procs: Proc[]): Proc[] {
    for (const p of procs) this.seen.set(p.pid, p);
    return procs;
  }

  async killAll(): Promise<void> {
    const running = [...this.seen.values()].filter(isRunning);
    for (const p of running) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
    await waitUntilGone(running, 10_000);
    this.seen.clear();
  }
}

/** Processes that run `program` with `marker` on their command line (PostgreSQL's backends left out). */
export function processesRunning(program: RegExp, marker: string): Proc[] {
  return allProcesses().filter((p) => program.test(p.command) && p.command.includes(marker) && !p.command.startsWith('postgres: '));
}
