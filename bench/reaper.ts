import fs from 'node:fs/promises';
import { dropDatabase } from './database.ts';
import { childrenOf, startTicks } from './processes.ts';

/**
 * Started by the bench in a process group of its own, connected by an IPC channel. The bench
 * keeps telling it which processes it started (pid and start time), which directories and
 * which database are its own. Should the bench die without saying "done" (killed, crashed
 * past its own cleanup), the channel closes and this process stops those processes by pid,
 * only if each pid still names the process the bench started, then removes the rest.
 */
export type ReaperPlan = {
  children: Array<{ pid: number; start: string }>;
  dirs: string[];
  database?: { serverUrl: string; name: string };
};

let plan: ReaperPlan = { children: [], dirs: [] };
let done = false;
const bench = process.ppid;
/** Children of the bench seen by this process itself, so that one started just before a crash is not missed. */
const seen = new Map<number, string>();
const watch = setInterval(() => {
  for (const child of childrenOf(bench)) if (child.pid !== process.pid) seen.set(child.pid, child.start);
}, 500);

process.on('message', (message: { plan?: ReaperPlan; done?: boolean }) => {
  if (message.done) {
    done = true;
    process.exit(0);
  }
  if (message.plan) plan = message.plan;
});
process.on('disconnect', () => {
  if (!done) void reap().finally(() => process.exit(0));
});
// The terminal's Ctrl-C reaches the bench, which cleans up itself; this one waits for the verdict.
process.on('SIGINT', () => {});

async function reap(): Promise<void> {
  clearInterval(watch);
  for (const child of plan.children) seen.set(child.pid, child.start);
  const ours = () => [...seen].map(([pid, start]) => ({ pid, start })).filter((c) => startTicks(c.pid) === c.start);
  for (const child of ours()) signal(child.pid, 'SIGINT');
  for (let i = 0; i < 80 && ours().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  for (const child of ours()) signal(child.pid, 'SIGKILL');
  if (plan.database) await dropDatabase(plan.database.serverUrl, plan.database.name).catch(() => {});
  for (const dir of plan.dirs) await fs.rm(dir, { recursive: true, force: true }).catch(() => {});
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    /* already gone */
  }
}
