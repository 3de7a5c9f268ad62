import fs from 'node:fs';
import path from 'node:path';
import { processInfo } from './processes.ts';

/**
 * One `npm start` per data directory. A second one would find the first one's embedded
 * PostgreSQL and Temporal dev server in use, attach to the database, start a second worker and
 * relay on them and die on the port: it must stop before it touches anything, and say which
 * process runs there. `<data dir>/deskflow.pid` names the process that runs it; a file left by
 * a process that is gone (killed outright), or whose pid now belongs to another program, is
 * taken over.
 */
export class DataDirInUse extends Error {
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(`another Deskflow (pid ${pid}) runs on the data directory ${dataDir}; stop it first (kill ${pid}), or give this one its own DESKFLOW_DATA_DIR`);
    this.pid = pid;
  }
}

type LockRecord = { pid: number };

/** Claims the data directory for this process until it exits; throws DataDirInUse when a live Deskflow holds it. */
export function claimDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'deskflow.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid } satisfies LockRecord) + '\n', { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
    const holder = readHolder(file);
    if (holder !== null && holder !== process.pid && isDeskflowServer(holder)) throw new DataDirInUse(dataDir, holder);
    // Left by a process that is gone: taken over.
    fs.rmSync(file, { force: true });
  }
  // Every way out of the process passes here but SIGKILL, whose file the next start takes over.
  process.once('exit', () => {
    if (readHolder(file) === process.pid) fs.rmSync(file, { force: true });
  });
}

function readHolder(file: string): number | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockRecord>;
    return Number.isInteger(record.pid) ? record.pid! : null;
  } catch {
    return null;
  }
}

/** Pids are reused: it counts only while its command line is a Deskflow server's. */
function isDeskflowServer(pid: number): boolean {
  const info = processInfo(pid);
  return info !== null && /(^|[\s/])src\/server\.ts(\s|$)/.test(info.command);
}
