import http from 'node:http';
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';

/**
 * The one load generator of the bench. An operation is any async call (an HTTP request, a
 * few SQL statements through pg); the same drivers run Deskflow and its ceilings, so their
 * figures differ only by what the operation does.
 */
export type Op = (i: number) => Promise<void>;

export type LoadResult = {
  requests: number;
  errors: number;
  /** The first error seen, to tell a broken harness from a slow system. */
  firstError: string | null;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
};

/** Latencies and counts of operations; several runs may record into one (rounds of a measure). */
export class Recorder {
  private readonly histogram: RecordableHistogram = createHistogram();
  requests = 0;
  errors = 0;
  firstError: string | null = null;

  ok(startedAt: number): void {
    this.requests += 1;
    // Microseconds: the histogram holds integers.
    this.histogram.record(Math.max(1, Math.round((performance.now() - startedAt) * 1000)));
  }

  failed(err: unknown): void {
    this.errors += 1;
    this.firstError ??= err instanceof Error ? err.message : String(err);
  }

  result(seconds: number): LoadResult {
    const h = this.histogram;
    const ms = (us: number) => (this.requests === 0 ? 0 : us / 1000);
    return {
      requests: this.requests,
      errors: this.errors,
      firstError: this.firstError,
      seconds,
      rps: seconds > 0 ? this.requests / seconds : 0,
      p50Ms: ms(h.percentile(50)),
      p90Ms: ms(h.percentile(90)),
      p99Ms: ms(h.percentile(99)),
      maxMs: ms(h.max),
      meanMs: ms(h.mean),
    };
  }
}

let counter = 0;
/** A process-wide sequence number for operations, so generated rows never collide. */
const next = () => counter++;

/**
 * Closed loop: `concurrency` callers, each issuing its next operation when the previous one
 * answered. The warm-up lasts `warmupMs` and until every caller has had an answer (so that
 * the measured window sees the target loaded, however slow it answers); then only operations
 * that answer within the next `durationMs` count, with their whole latency. Callers stop
 * issuing when the window ends.
 */
export async function closedLoop(opts: { op: Op; concurrency: number; durationMs: number; warmupMs?: number; recorder?: Recorder }): Promise<LoadResult> {
  const recorder = opts.recorder ?? new Recorder();
  const warmupEnd = performance.now() + (opts.warmupMs ?? 0);
  const warmedCallers = new Set<number>();
  let windowStart = Infinity;
  let windowEnd = Infinity;
  const caller = async (id: number) => {
    while (performance.now() < windowEnd) {
      const started = performance.now();
      let failure: unknown = null;
      try {
        await opts.op(next());
      } catch (err) {
        failure = err ?? new Error('operation failed');
      }
      const done = performance.now();
      if (windowStart === Infinity) {
        warmedCallers.add(id);
        if (done >= warmupEnd && warmedCallers.size === opts.concurrency) {
          windowStart = done;
          windowEnd = done + opts.durationMs;
        }
        continue;
      }
      if (done > windowEnd) continue;
      if (failure) recorder.failed(failure);
      else recorder.ok(started);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, id) => caller(id)));
  return recorder.result(opts.durationMs / 1000);
}

/** Closed loop for a fixed number of operations (a burst): as fast as the target takes them. */
export async function burst(opts: { op: Op; concurrency: number; count: number }): Promise<LoadResult> {
  const recorder = new Recorder();
  const started = performance.now();
  let issued = 0;
  const caller = async () => {
    while (issued < opts.count) {
      issued += 1;
      const t = performance.now();
      try {
        await opts.op(next());
        recorder.ok(t);
      } catch (err) {
        recorder.failed(err);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, caller));
  return recorder.result((performance.now() - started) / 1000);
}

/**
 * Open loop at a constant rate: operation k is due at start + k/rate whether or not earlier
 * ones have answered, and its latency counts from when it was due, so a stalled target shows
 * in the figures instead of slowing the generator down (no coordinated omission). At most
 * `maxInFlight` operations wait at once; beyond that, due operations count as errors. The
 * first `warmupMs` run at the same rate and do not count: what was measured before (a closed
 * loop at the maximum) has settled when the window opens.
 */
export async function openLoop(opts: { op: Op; rate: number; durationMs: number; warmupMs?: number; maxInFlight?: number; recorder?: Recorder }): Promise<LoadResult> {
  const recorder = opts.recorder ?? new Recorder();
  const maxInFlight = opts.maxInFlight ?? 1024;
  const warmupMs = opts.warmupMs ?? 0;
  const warmup = Math.round((opts.rate * warmupMs) / 1000);
  const total = warmup + Math.max(1, Math.round((opts.rate * opts.durationMs) / 1000));
  const interval = 1000 / opts.rate;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  for (let k = 0; k < total; k++) {
    const due = started + k * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const counts = k >= warmup;
    if (pending.size >= maxInFlight) {
      if (counts) recorder.failed(new Error(`more than ${maxInFlight} operations waiting`));
      continue;
    }
    const p = opts.op(next()).then(
      () => {
        if (counts) recorder.ok(due);
      },
      (err) => {
        if (counts) recorder.failed(err);
      },
    );
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  await Promise.all(pending);
  return recorder.result(Math.max(opts.durationMs, performance.now() - started - warmupMs) / 1000);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export type HttpTarget = { port: number; key: string };

const REQUEST_TIMEOUT_MS = 60_000;

export type HttpCall = { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown; expect: number };

/**
 * A keep-alive HTTP client for one target. Each caller of a closed loop keeps one connection;
 * an open loop opens more when every connection is busy.
 */
export class HttpClient {
  private readonly agent: http.Agent;
  private readonly target: HttpTarget;

  constructor(target: HttpTarget) {
    this.target = target;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
  }

  /**
   * Sends the call; resolves with the parsed JSON body, rejects on another status. A kept-alive
   * connection that the server closed just as it was reused is retried once on a new one, as
   * Node's documentation advises: the server never saw that request.
   */
  async call(call: HttpCall): Promise<unknown> {
    const { status, text } = await this.exchange(call);
    if (status !== call.expect) throw new Error(`${call.method} ${call.path} answered ${status}: ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** The verbs of the tests' API steps (test/helpers/api.ts): the status and the body (JSON parsed when it is JSON). */
  post = (path: string, body?: unknown) => this.answer({ method: 'POST', path, body });
  patch = (path: string, body?: unknown) => this.answer({ method: 'PATCH', path, body });

  private async answer(call: Omit<HttpCall, 'expect'>): Promise<{ status: number; body: any }> {
    const { status, text } = await this.exchange(call);
    try {
      return { status, body: text ? JSON.parse(text) : undefined };
    } catch {
      return { status, body: text };
    }
  }

  private async exchange(call: Omit<HttpCall, 'expect'>): Promise<{ status: number; text: string }> {
    try {
      return await this.send(call);
    } catch (err) {
      if ((err as { reusedSocket?: boolean }).reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') return this.send(call);
      throw err;
    }
  }

  private send(call: Omit<HttpCall, 'expect'>): Promise<{ status: number; text: string }> {
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.target.port,
          method: call.method,
          path: call.path,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.target.key}`,
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      // A target that stops answering fails the measure instead of hanging it.
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${call.method} ${call.path}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
