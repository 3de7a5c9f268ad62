import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A process the bench started: its output goes to a log file (the last lines are kept for
 * error messages), and stop() ends it by its pid, never by name.
 */
export class Child {
  readonly name: string;
  readonly spawnedAt: number;
  private readonly proc: ChildProcess;
  private readonly recent: string[] = [];
  private readonly lineWaiters = new Set<(line: string) => void>();
  private readonly exited: Promise<void>;

  private constructor(name: string, proc: ChildProcess, logFile: string) {
    this.name = name;
    this.proc = proc;
    this.spawnedAt = performance.now();
    const log = fs.createWriteStream(logFile, { flags: 'a' });
    const take = (stream: NodeJS.ReadableStream | null, isStdout: boolean) => {
      let partial = '';
      stream?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          this.recent.push(line);
          if (this.recent.length > 40) this.recent.shift();
          if (isStdout) for (const waiter of this.lineWaiters) waiter(line);
        }
      });
    };
    take(proc.stdout, true);
    take(proc.stderr, false);
    this.exited = new Promise((resolve) => {
      proc.once('exit', () => resolve());
      proc.once('error', () => resolve());
    });
    void this.exited.then(() => log.end());
  }

  /** Starts `node <script> ...args` from the repository root. */
  static node(name: string, args: string[], env: NodeJS.ProcessEnv, logDir: string): Child {
    const proc = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Child(name, proc, path.join(logDir, `${name}.log`));
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Milliseconds from spawn until a stdout line matches; rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const done = (err: Error | null, ms = 0) => {
        clearTimeout(timer);
        this.lineWaiters.delete(onLine);
        this.proc.off('exit', onExit);
        if (err) reject(err);
        else resolve(ms);
      };
      const onLine = (line: string) => {
        if (pattern.test(line)) done(null, performance.now() - this.spawnedAt);
      };
      const onExit = (code: number | null) => done(new Error(`${this.name} exited (code ${code}) before printing ${pattern}:\n${this.tail()}`));
      const timer = setTimeout(() => done(new Error(`${this.name} did not print ${pattern} within ${timeoutMs / 1000} s:\n${this.tail()}`)), timeoutMs);
      this.lineWaiters.add(onLine);
      this.proc.once('exit', onExit);
      if (!this.running) onExit(this.proc.exitCode);
    });
  }

  /** Resident memory in MB (VmRSS), or null once the process is gone. */
  rssMb(): number | null {
    return rssMb(this.pid);
  }

  tail(): string {
    return this.recent.map((l) => `  | ${l}`).join('\n');
  }

  /** SIGINT (each Deskflow process shuts down in order on it), SIGKILL if still there after the grace time. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGINT');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** A crash: SIGKILL, nothing shuts down in order. */
  async crash(): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

export function rssMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples the RSS of named processes every `everyMs`; peaks are read per time window. */
export class RssSampler {
  private readonly samples: Array<{ t: number; name: string; mb: number }> = [];
  private readonly timer: NodeJS.Timeout;
  private readonly targets = new Map<string, () => number | null>();

  constructor(everyMs = 200) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  watch(name: string, child: Child): void {
    this.targets.set(name, () => child.rssMb());
  }

  sample(): void {
    const t = performance.now();
    for (const [name, read] of this.targets) {
      const mb = read();
      if (mb !== null) this.samples.push({ t, name, mb });
    }
  }

  /** The highest sample of `name` between `from` and `to` (performance.now() times). */
  peak(name: string, from: number, to = performance.now()): number | null {
    let peak: number | null = null;
    for (const s of this.samples) if (s.name === name && s.t >= from && s.t <= to && (peak === null || s.mb > peak)) peak = s.mb;
    return peak;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Process start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a pid from its reuse. */
export function startTicks(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; fields after its closing parenthesis are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The direct children of a process (this one by default), with their start times. */
export function childrenOf(parent = process.pid): Array<{ pid: number; start: string }> {
  const children: Array<{ pid: number; start: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === parent) children.push({ pid: Number(entry), start: fields[19] });
    } catch {
      /* gone meanwhile */
    }
  }
  return children;
}
