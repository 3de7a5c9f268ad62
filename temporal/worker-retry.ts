import { errorFields, type Logger } from '../src/logger.ts';
import type { RunningWorker } from './worker.ts';

export type WorkerRetryOptions = {
  /** One attempt to start the worker (connect to Temporal, create, run). */
  start: () => Promise<RunningWorker>;
  /** Runs once the worker runs (reconcile schedules, say so). */
  onStarted: (worker: RunningWorker) => Promise<void>;
  logger: Logger;
  /** Backoff between attempts: from `firstDelayMs`, doubling, at most `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
};

/**
 * Starts the workflow worker and, while Temporal cannot be reached (not up yet, restarting, a
 * dev server that did not start), keeps trying in the background with capped backoff, one log
 * line per attempt. The API and the relay run meanwhile; executions wait in PostgreSQL (or in
 * Temporal's task queue) and run as soon as the worker is up, without a restart. A dedicated
 * worker process behaves the same, so that it does not depend on a supervisor's restart loop.
 */
export class WorkerRetry {
  private readonly options: Required<WorkerRetryOptions>;
  private worker: RunningWorker | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(options: WorkerRetryOptions) {
    this.options = { firstDelayMs: 1_000, maxDelayMs: 30_000, ...options };
  }

  /** Makes the first attempt and resolves with its outcome; on failure, retries in the background. */
  async start(): Promise<{ started: true } | { started: false; error: Error }> {
    const first = await this.attempt();
    if (first === null) return { started: true };
    if (!this.stopped) this.loop = this.retry();
    return { started: false, error: first };
  }

  get running(): boolean {
    return this.worker !== null;
  }

  /** Ends the retries (waiting for an attempt under way) and stops the worker if it runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.worker?.stop();
  }

  /** null when the worker runs, else the error of the attempt. */
  private async attempt(): Promise<Error | null> {
    let worker: RunningWorker;
    try {
      worker = await this.options.start();
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    this.worker = worker;
    if (!this.stopped) {
      // The worker runs either way; what follows its start must not end the retry loop unseen.
      await this.options.onStarted(worker).catch((err) => this.options.logger.error('after the worker started', errorFields(err)));
    }
    return null;
  }

  private async retry(): Promise<void> {
    const { logger, firstDelayMs, maxDelayMs } = this.options;
    for (let attempt = 2, delay = firstDelayMs; !this.stopped; attempt++, delay = Math.min(delay * 2, maxDelayMs)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (this.stopped) return;
      const error = await this.attempt();
      if (error === null) {
        logger.info('workflow worker started', { attempt });
        return;
      }
      logger.warn('workflow worker not started; retrying', {
        attempt,
        retryInSeconds: Math.min(delay * 2, maxDelayMs) / 1000,
        // One short line per attempt: the first line of the message, and the gRPC status where there is one.
        ...errorFields(error),
        error: errorFields(error).error.split('\n')[0],
      });
    }
  }
}
