import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { openLoop } from '../../../bench/load.ts';

const SLOW_MS = 300;

/** The bench's open loop, on an operation whose latency the test decides. */
describe('openLoop', () => {
  it('counts every operation of the window from when it was due, slow ones included', async () => {
    const began = performance.now();
    const slowUntil = began + 100;
    const result = await openLoop({
      rate: 200,
      durationMs: 500,
      op: () => new Promise<void>((resolve) => setTimeout(resolve, performance.now() < slowUntil ? SLOW_MS : 1)),
    });
    expect(result.requests).toBe(100);
    expect(result.p99Ms).toBeGreaterThanOrEqual(SLOW_MS - 5);
  });

  it('runs the warm-up at the same rate without counting it: a slow start does not reach the figures', async () => {
    let calls = 0;
    const began = performance.now();
    const slowUntil = began + 100;
    const result = await openLoop({
      rate: 200,
      durationMs: 500,
      warmupMs: 200,
      op: () => {
        calls += 1;
        return new Promise<void>((resolve) => setTimeout(resolve, performance.now() < slowUntil ? SLOW_MS : 1));
      },
    });
    expect(calls).toBe(140);
    expect(result.requests).toBe(100);
    expect(result.errors).toBe(0);
    expect(result.maxMs).toBeLessThan(SLOW_MS - 50);
  });
});
