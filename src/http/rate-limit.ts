import { rateLimited } from '../errors.ts';

/**
 * Token bucket per API key, in process memory: `burst` requests at once, refilled at
 * `perSecond`. A rate of 0 turns limiting off. Buckets idle long enough to be full are dropped.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perSecond: number;
  private readonly burst: number;
  private readonly now: () => number;

  constructor(opts: { perSecond: number; burst: number; now?: () => number }) {
    this.perSecond = opts.perSecond;
    this.burst = Math.max(1, opts.burst);
    this.now = opts.now ?? Date.now;
  }

  take(key: string): void {
    if (this.perSecond <= 0) return;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      throw rateLimited(Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)));
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 10_000) this.sweep(now);
  }

  private sweep(now: number): void {
    const fullAfterMs = (this.burst / this.perSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at > fullAfterMs) this.buckets.delete(key);
  }
}
