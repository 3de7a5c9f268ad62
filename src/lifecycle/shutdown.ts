import { errorFields, type Logger } from '../logger.ts';

/**
 * The one owner of a server process's shutdown. Each part registers how to stop when it has
 * started; SIGINT, SIGTERM and SIGHUP (from npm, which forwards them, from a terminal's Ctrl-C
 * to the whole group, from a supervisor, or from a closed terminal) all begin the same ordered
 * stop, newest part first, then exit. A signal during shutdown changes nothing: a terminal's
 * Ctrl-C under npm arrives twice (once direct, once forwarded). Nothing else in the process may
 * act on these signals (the Temporal runtime is told not to).
 */
export class Shutdown {
  private readonly steps: Array<{ name: string; stop: () => Promise<void> }> = [];
  private readonly opening = new Set<Promise<unknown>>();
  private begun = false;

  private readonly logger: Logger;
  private readonly deadlineMs: number;

  constructor(logger: Logger, options: { deadlineMs?: number } = {}) {
    this.logger = logger;
    this.deadlineMs = options.deadlineMs ?? 60_000;
  }

  /** True from the first moment of shutdown: readiness answers 503 from then on. */
  get stopping(): boolean {
    return this.begun;
  }

  /** Registers how to stop a part that has just started. */
  add(name: string, stop: () => Promise<void>): void {
    this.steps.push({ name, stop });
  }

  /**
   * Starts a part and registers its stop. A shutdown that begins meanwhile waits for the start
   * to finish and stops the part too (never leaving a half-started database behind); the
   * caller then gets `ShuttingDown` instead of going on to start the next part.
   */
  async start<T>(name: string, open: () => Promise<T>, stop: (value: T) => Promise<void>): Promise<T> {
    if (this.begun) throw new ShuttingDown();
    const opening = open();
    this.opening.add(opening);
    try {
      const value = await opening;
      this.add(name, () => stop(value));
      if (this.begun) throw new ShuttingDown();
      return value;
    } finally {
      this.opening.delete(opening);
    }
  }

  listen(): void {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void this.run(signal));
  }

  /** Stops every part in reverse order of start and exits with `code`; later calls do nothing. */
  async run(reason: string, code = 0): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    this.logger.info('shutting down', { reason });
    // A part that never stops must not keep the process (and its children) alive for ever.
    setTimeout(() => {
      this.logger.error('shutdown did not finish in time; exiting', { deadlineSeconds: this.deadlineMs / 1000 });
      process.exit(1);
    }, this.deadlineMs).unref();
    while (this.opening.size > 0) await Promise.allSettled([...this.opening]);
    for (const { name, stop } of this.steps.reverse()) {
      await stop().then(
        () => this.logger.debug('stopped', { step: name }),
        (err) => this.logger.error('shutdown step failed', { step: name, ...errorFields(err) }),
      );
    }
    this.logger.info('stopped');
    process.exit(code);
  }
}

/** Thrown to a start sequence that a shutdown interrupted: not an error to report. */
export class ShuttingDown extends Error {
  constructor() {
    super('shutting down');
  }
}
