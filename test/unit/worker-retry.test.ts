import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { RunningWorker } from '../../temporal/worker.ts';
import { WorkerRetry } from '../../temporal/worker-retry.ts';

/** A worker start that fails `failures` times (Temporal unreachable), then succeeds. */
function flakyStart(failures: number) {
  const calls = { attempts: 0, stopped: 0, started: 0 };
  const lines: Array<Record<string, unknown>> = [];
  const start = async (): Promise<RunningWorker> => {
    calls.attempts++;
    if (calls.attempts <= failures) throw new Error(`tcp connect error (attempt ${calls.attempts})\nmore detail`);
    return { worker: null as never, stop: async () => void calls.stopped++ };
  };
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  return { calls, lines, start, logger };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('WorkerRetry', () => {
  it('starts at once when Temporal answers', async () => {
    const f = flakyStart(0);
    const retry = new WorkerRetry({ start: f.start, onStarted: async () => void f.calls.started++, logger: f.logger });
    expect(await retry.start()).toEqual({ started: true });
    expect(f.calls).toEqual({ attempts: 1, stopped: 0, started: 1 });
    await retry.stop();
    expect(f.calls.stopped).toBe(1);
  });

  it('keeps trying in the background, one log line per failed attempt, until the worker starts', async () => {
    const f = flakyStart(4);
    const retry = new WorkerRetry({ start: f.start, onStarted: async () => void f.calls.started++, logger: f.logger, firstDelayMs: 1, maxDelayMs: 4 });
    const first = await retry.start();
    expect(first).toMatchObject({ started: false, error: { message: expect.stringContaining('attempt 1') } });
    await until(() => f.calls.started === 1);
    expect(f.calls.attempts).toBe(5);
    expect(retry.running).toBe(true);
    // Attempts 2 to 4 failed: each is one short line, the backoff doubling up to its cap.
    expect(f.lines.filter((l) => l.msg === 'workflow worker not started; retrying')).toEqual([
      expect.objectContaining({ level: 'warn', attempt: 2, retryInSeconds: 0.002, error: 'tcp connect error (attempt 2)' }),
      expect.objectContaining({ attempt: 3, retryInSeconds: 0.004 }),
      expect.objectContaining({ attempt: 4, retryInSeconds: 0.004 }),
    ]);
    expect(f.lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'workflow worker started', attempt: 5 }));
    await retry.stop();
    expect(f.calls.stopped).toBe(1);
  });

  it('stops retrying on stop(), even in the middle of a long backoff', async () => {
    const f = flakyStart(Number.POSITIVE_INFINITY);
    const retry = new WorkerRetry({ start: f.start, onStarted: async () => void f.calls.started++, logger: f.logger, firstDelayMs: 3_600_000 });
    expect((await retry.start()).started).toBe(false);
    await retry.stop();
    expect(f.calls).toEqual({ attempts: 1, stopped: 0, started: 0 });
    expect(retry.running).toBe(false);
  });
});
