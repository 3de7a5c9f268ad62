import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { RateLimiter } from '../../../src/http/rate-limit.ts';

/** A limiter on a clock the test moves by hand. */
function limiterAt(perSecond: number, burst: number) {
  const clock = { now: 1_000_000 };
  const limiter = new RateLimiter({ perSecond, burst, now: () => clock.now });
  return { limiter, clock };
}

/** What taking a token answers: 'ok', or the Retry-After of the 429. */
function take(limiter: RateLimiter, key: string): string {
  try {
    limiter.take(key);
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 429) throw err;
    return `retry after ${err.headers['Retry-After']}`;
  }
}

describe('the per-key rate limiter', () => {
  it('lets a burst through, then answers 429 with when to retry', () => {
    const { limiter } = limiterAt(2, 3);
    expect(Array.from({ length: 4 }, () => take(limiter, 'key-a'))).toEqual(['ok', 'ok', 'ok', 'retry after 1']);
  });

  it('refills at the configured rate', () => {
    const { limiter, clock } = limiterAt(2, 2);
    expect([take(limiter, 'k'), take(limiter, 'k'), take(limiter, 'k')]).toEqual(['ok', 'ok', 'retry after 1']);
    clock.now += 500; // one token back at 2 per second
    expect([take(limiter, 'k'), take(limiter, 'k')]).toEqual(['ok', 'retry after 1']);
    clock.now += 60_000; // never more than the burst
    expect([take(limiter, 'k'), take(limiter, 'k'), take(limiter, 'k')]).toEqual(['ok', 'ok', 'retry after 1']);
  });

  it('keeps one bucket per key', () => {
    const { limiter } = limiterAt(1, 1);
    expect([take(limiter, 'a'), take(limiter, 'b'), take(limiter, 'a')]).toEqual(['ok', 'ok', 'retry after 1']);
  });

  it('says to wait longer when the rate is slow', () => {
    const { limiter } = limiterAt(0.1, 1);
    expect([take(limiter, 'k'), take(limiter, 'k')]).toEqual(['ok', 'retry after 10']);
  });

  it('is off at a rate of 0', () => {
    const { limiter } = limiterAt(0, 0);
    expect(Array.from({ length: 100 }, () => take(limiter, 'k')).every((answer) => answer === 'ok')).toBe(true);
  });
});
