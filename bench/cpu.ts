import fs from 'node:fs';
import { everyProcess } from '../test/helpers/proc.ts';

/**
 * CPU time of processes from /proc, for the cost of one execution per process. A process's
 * figure is its own time (all its threads) plus that of its children, live or waited for: a
 * PostgreSQL server is its postmaster and every backend it forked.
 */
const TICKS_PER_SECOND = 100;

type Stat = { pid: number; ppid: number; comm: string; ticks: number };

function readStat(pid: number): Stat | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the command name: state ppid … utime(14) stime(15) cutime(16) cstime(17), counted from 1.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

const allStats = (): Stat[] => everyProcess(readStat);

/** CPU milliseconds used so far by the process `pid` and everything below it. */
export function treeCpuMs(pid: number, stats = allStats()): number {
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let ticks = 0;
  const stack = stats.filter((s) => s.pid === pid);
  while (stack.length > 0) {
    const s = stack.pop()!;
    ticks += s.ticks;
    stack.push(...(children.get(s.pid) ?? []));
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The pid of the first process below `parent` whose command is `comm` (the bench's PostgreSQL, its Temporal dev server). */
export function descendantNamed(parent: number, comm: string): number | null {
  const stats = allStats();
  const below = new Set([parent]);
  // Parents come before their children often but not always: repeat until nothing is added.
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (below.has(s.ppid) && !below.has(s.pid)) {
        if (s.comm === comm) return s.pid;
        below.add(s.pid);
        grew = true;
      }
    }
  }
  return null;
}

/** CPU of named process trees between two readings: `take()` starts, `end()` answers ms per tree. */
export function cpuMeter(pids: Record<string, number | null>) {
  const read = () => {
    const stats = allStats();
    return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid === null ? null : treeCpuMs(pid, stats)]));
  };
  const before = read();
  return {
    end(): Record<string, number | null> {
      const after = read();
      return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms === null || before[name] === null ? null : ms - before[name]!]));
    },
  };
}
