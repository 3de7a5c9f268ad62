import { constants } from 'node:os';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { CommandError, UsageError } from './errors.ts';

/**
 * Process plumbing shared by the CLI entries: what was opened is released in reverse order
 * whatever happens (success, error, Ctrl-C, SIGTERM), errors become one line on stderr and an
 * exit code, and nothing is left running, so the process ends by itself (no process.exit on
 * the normal path). Kept free of database imports so that `--help` and usage errors are quick.
 */
export class Resources {
  private readonly releases: Array<() => Promise<void>> = [];
  private readonly opening = new Set<Promise<unknown>>();
  private released: Promise<void> | undefined;

  /** Opens something that must be released later (a database cluster, an ORM). */
  async acquire<T>(open: () => Promise<T>, release: (value: T) => Promise<void>): Promise<T> {
    const opened = open();
    this.opening.add(opened);
    try {
      const value = await opened;
      this.releases.push(() => release(value));
      return value;
    } finally {
      this.opening.delete(opened);
    }
  }

  /** Waits until nothing is half-open, so that a signal never orphans a cluster being started. */
  async settled(): Promise<void> {
    while (this.opening.size > 0) await Promise.allSettled([...this.opening]);
  }

  /** Runs every release once, newest first; later calls wait for the same run. */
  release(): Promise<void> {
    this.released ??= (async () => {
      for (const release of this.releases.reverse()) {
        await release().catch((err) => {
          printError(`while shutting down: ${messageOf(err)}`);
          process.exitCode ||= 1;
        });
      }
    })();
    return this.released;
  }
}

export async function runEntry(main: (resources: Resources) => Promise<void>): Promise<void> {
  const resources = new Resources();
  // A supervisor's SIGTERM reaches only this process: stop the embedded cluster we started.
  // A second signal is not caught (process.once) and ends the process at once.
  let interrupted: string | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    interrupted = signal;
    printError(`interrupted (${signal}); shutting down.`);
    void resources
      .settled()
      .then(() => resources.release())
      .finally(() => process.exit(128 + constants.signals[signal]));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await main(resources);
  } catch (err) {
    // After a signal, the command fails because its resources are being released: not news.
    if (interrupted) return;
    const message = err instanceof UsageError || err instanceof CommandError ? err.message : messageOf(err);
    printError(message);
    // `--json` promises one JSON object on stdout: a failure is one too.
    if (process.argv.slice(2).includes('--json')) {
      const code = err instanceof UsageError ? 'invalid_usage' : err instanceof CommandError ? 'command_failed' : 'internal_error';
      process.stdout.write(JSON.stringify({ error: { code, message } }) + '\n');
    }
    process.exitCode = err instanceof UsageError ? 2 : 1;
  } finally {
    await resources.release();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function printError(message: string): void {
  process.stderr.write(`error: ${message}\n`);
}

/** One line, whatever the error: node and driver messages sometimes span several. */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** One line ending in a full stop, so that a usage hint can follow it. */
export function sentence(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return /[.?!]$/.test(line) ? line : `${line}.`;
}

/**
 * The options of a single-purpose entry (`npm run migrate`, `npm run temporal:setup`), with
 * `-h, --help` added: null once the help has been printed. A malformed command line is a usage
 * error that ends with the usage line.
 */
export function parseEntryArgs<const O extends ParseArgsOptionsConfig>(options: O, usage: string) {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true });
  } catch (err) {
    throw new UsageError(`${sentence((err as Error).message)} ${usage.split('\n')[0]}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage + '\n');
    return null;
  }
  return parsed.values;
}
