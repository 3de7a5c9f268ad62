import { errorFields, type Logger } from '../logger.ts';

/**
 * The one owner of a server process's shutdown. Each part registers how to stop when it has
 * started; SIGINT, SIGTERM and SIGHUP (from npm, which forwards them, from a terminal's Ctrl-C
 * to the whole group, from a supervisor, or from a closed terminal) all begin the same ordered
 * stop, newest part first, then exit. Nothing else in the process may act on these signals (the
 * Temporal runtime is told not to).
 *
 * A process that serves the API drains first (`drainMs`): from the first moment /readyz answers
 * 503 (`stopping`), so that a load balancer takes it out of rotation, while every part keeps
 * working and requests are still answered; only then do the parts stop. A signal during the
 * drain ends it at once, unless it comes within a second of the first: a terminal's Ctrl-C under
 * npm arrives twice (once direct, once forwarded). Later signals change nothing.
 */
export class Shutdown {
  private readonly steps: Array<{ name: string; stop: () => Promise<void> }> = [];
  private readonly opening = new Set<Promise<unknown>>();
  private begun = false;

  private readonly logger: Logger;
  private readonly deadlineMs: number;
  private readonly drainMs: number;
  private beganAt = 0;
  private endDrain: (() => void) | null = null;

  constructor(logger: Logger, options: { deadlineMs?: number; drainMs?: number } = {}) {
    this.logger = logger;
    this.drainMs = options.drainMs ?? 0;
    this.deadlineMs = (options.deadlineMs ?? 60_000) + this.drainMs;
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
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => this.signalled(signal));
  }

  private signalled(signal: NodeJS.Signals): void {
    if (!this.begun) {
      void this.run(signal);
      return;
    }
    if (this.endDrain && Date.now() - this.beganAt >= 1_000) {
      this.logger.info('drain ended early', { signal });
      this.endDrain();
    }
  }

  /** Stops every part in reverse order of start and exits with `code`; later calls do nothing. */
  async run(reason: string, code = 0): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    this.beganAt = Date.now();
    this.logger.info('shutting down', { reason });
    // A part that never stops must not keep the process (and its children) alive for ever.
    setTimeout(() => {
      this.logger.error('shutdown did not finish in time; exiting', { deadlineSeconds: this.deadlineMs / 1000 });
      process.exit(1);
    }, this.deadlineMs).unref();
    while (this.opening.size > 0) await Promise.allSettled([...this.opening]);
    // Only a process that serves requests has something to drain; a failed start drains nothing.
    if (this.drainMs > 0 && code === 0 && this.steps.some((step) => step.name === 'http')) {
      this.logger.info('draining: /readyz answers 503, requests are still served', { drainSeconds: this.drainMs / 1000 });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.drainMs);
        this.endDrain = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.endDrain = null;
    }
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
