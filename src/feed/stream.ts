import type { Logger } from '../logger.ts';
import { errorFields } from '../logger.ts';
import { comparePositions, endedBefore, type Position, type Snapshot } from './cursor.ts';
import { feedEvents, type FeedEvent } from './events.ts';
import type { FeedSubscriber } from './hub.ts';
import type { FeedSource } from './store.ts';

/** What a stream writes to: the HTTP response (a fake in unit tests). */
export interface StreamOutput {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  /** Bytes written and not yet handed to the connection. */
  readonly writableLength: number;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

export type StreamOptions = {
  /** A `: keep-alive` comment this often (default 15 s), so that proxies and clients see the connection live. */
  keepAliveMs?: number;
  /** Bytes a client may leave unread; past this the stream is closed and the client resumes with Last-Event-ID (default 1 MiB). */
  maxBufferedBytes?: number;
  /** How long a check that the API key is still valid holds (default 1 s): a revoked key's stream ends at its next event or keep-alive. */
  keyCheckMs?: number;
  /** Rows per read of a catch-up (default 500). */
  pageSize?: number;
};

type State = 'waiting' | 'catching-up' | 'live' | 'ended';

/**
 * One client's server-sent-events stream: first what it missed (the events after its cursor up
 * to where the feed stood when it subscribed, read page by page), then the feed's events as they
 * come, queued meanwhile; so nothing is missed and nothing sent twice. It ends when the client
 * goes, its key is revoked, it leaves more than `maxBufferedBytes` unread, or the server stops.
 */
export class EventStream implements FeedSubscriber {
  private readonly out: StreamOutput;
  private readonly stillAuthorized: () => Promise<boolean>;
  private readonly logger: Logger;
  private readonly context: Record<string, unknown>;
  private readonly keepAliveMs: number;
  private readonly maxBufferedBytes: number;
  private readonly keyCheckMs: number;
  private readonly pageSize: number;

  private state: State = 'waiting';
  /** The client's cursor: events at or before it are not sent. */
  private after: Position | null = null;
  /** Without a cursor: the transactions that had committed when the stream opened, whose events are not sent. */
  private committedBefore: Snapshot | null = null;
  private queue: FeedEvent[] = [];
  private queuedBytes = 0;
  private flushing = false;
  /** The request was authenticated just now. */
  private keyCheckedAt = Date.now();
  private keepAlive: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly openedAt = Date.now();
  private sent = 0;

  constructor(
    out: StreamOutput,
    deps: { stillAuthorized: () => Promise<boolean>; logger: Logger; context?: Record<string, unknown> } & StreamOptions,
  ) {
    this.out = out;
    this.stillAuthorized = deps.stillAuthorized;
    this.logger = deps.logger;
    this.context = deps.context ?? {};
    this.keepAliveMs = deps.keepAliveMs ?? 15_000;
    this.maxBufferedBytes = deps.maxBufferedBytes ?? 1024 * 1024;
    this.keyCheckMs = deps.keyCheckMs ?? 1_000;
    this.pageSize = deps.pageSize ?? 500;
    // From the start: a client that leaves while the stream is being set up ends it too.
    out.once('close', () => this.end('client closed the connection'));
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  /**
   * Starts sending, once the response's headers are out. With a cursor (`after`): the events
   * after it up to `subscription.from` (where the feed stood when this stream subscribed), read
   * from `source`, then the live ones. Without one: the live events of transactions that had not
   * committed when the stream opened (`committedBefore`, taken after it subscribed).
   */
  async begin(
    subscription: { from: Position; unsubscribe: () => void },
    start: { after: Position } | { committedBefore: Snapshot },
    source: Pick<FeedSource, 'between'>,
    workspaceId: string,
  ): Promise<void> {
    this.unsubscribe = subscription.unsubscribe;
    if (this.state === 'ended') {
      subscription.unsubscribe();
      return;
    }
    this.state = 'catching-up';
    const after = 'after' in start ? start.after : null;
    this.after = after;
    this.committedBefore = 'committedBefore' in start ? start.committedBefore : null;
    // Delivered while the stream was being set up, before it knew where its client stands.
    this.queue = this.queue.filter((event) => !this.hasSeen(event));
    this.queuedBytes = this.queue.reduce((bytes, event) => bytes + event.frame.length, 0);
    this.keepAlive = setInterval(() => void this.sendKeepAlive(), this.keepAliveMs);
    this.keepAlive.unref();
    try {
      let from = after;
      while (from !== null && comparePositions(from, subscription.from) < 0) {
        const rows = await source.between(workspaceId, from, subscription.from, this.pageSize);
        if (!(await this.authorized())) return;
        // At the client's pace: what stays unwritten here is the page, not the connection's buffer.
        for (const event of feedEvents(rows)) {
          if (this.state !== 'catching-up') return;
          if (!this.write([event])) await this.drained();
        }
        if (rows.length < this.pageSize) break;
        from = rows[rows.length - 1].position;
      }
    } catch (err) {
      this.logger.warn('event stream catch-up failed; the client resumes from its last event', { ...this.context, ...errorFields(err) });
      this.end('catch-up failed');
      return;
    }
    if (this.state !== 'catching-up') return;
    this.state = 'live';
    await this.flush();
  }

  deliver(event: FeedEvent): void {
    if (this.state === 'ended' || this.hasSeen(event)) return;
    if (this.out.writableLength + this.queuedBytes > this.maxBufferedBytes) {
      this.logger.info('event stream closed: the client reads too slowly', { ...this.context, unreadBytes: this.out.writableLength + this.queuedBytes });
      this.end('client too slow', true);
      return;
    }
    this.queue.push(event);
    this.queuedBytes += event.frame.length;
    if (this.state === 'live') void this.flush();
  }

  close(): void {
    this.end('server stopping');
  }

  /** Whether the client has the event already, or it is older than the stream. */
  private hasSeen(event: FeedEvent): boolean {
    if (this.after && comparePositions(event.position, this.after) <= 0) return true;
    return this.committedBefore !== null && endedBefore(this.committedBefore, event.position.txid);
  }

  /** Ends the stream (at once, dropping what is unread, when `drop`); a later call does nothing. */
  end(reason: string, drop = false): void {
    if (this.state === 'ended') return;
    const begun = this.state !== 'waiting';
    this.state = 'ended';
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.queue = [];
    this.queuedBytes = 0;
    this.unsubscribe?.();
    if (begun) {
      if (drop) this.out.destroy();
      else this.out.end();
    }
    this.logger.debug('event stream ended', { ...this.context, reason, events: this.sent, seconds: Math.round((Date.now() - this.openedAt) / 1000) });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0 && this.state === 'live') {
        if (!(await this.authorized())) return;
        const events = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        this.write(events);
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Whether the connection takes more at once (false: wait for 'drain'). */
  private write(events: FeedEvent[]): boolean {
    if (events.length === 0 || this.state === 'ended') return true;
    this.sent += events.length;
    return this.out.write(events.map((e) => e.frame).join(''));
  }

  private async sendKeepAlive(): Promise<void> {
    if (this.state === 'ended' || !(await this.authorized())) return;
    this.out.write(': keep-alive\n\n');
  }

  /** Whether the key still holds (looked at again after keyCheckMs); a revoked key ends the stream. */
  private async authorized(): Promise<boolean> {
    if (this.state === 'ended') return false;
    if (Date.now() - this.keyCheckedAt < this.keyCheckMs) return true;
    const valid = await this.stillAuthorized().catch(() => false);
    // The stream may have ended meanwhile.
    if (this.ended) return false;
    if (!valid) {
      this.end('API key no longer valid');
      return false;
    }
    this.keyCheckedAt = Date.now();
    return true;
  }

  private drained(): Promise<void> {
    if (this.state === 'ended') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.once('drain', done);
      this.out.once('close', done);
    });
  }
}
