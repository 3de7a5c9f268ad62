import { tooManyStreams, unavailable } from '../errors.ts';
import { errorFields, type Logger } from '../logger.ts';
import type { Position } from './cursor.ts';
import { feedEvents, STREAMED, type FeedEvent, type OutboxRow } from './events.ts';
import type { FeedSource } from './store.ts';
import type { Wakeups } from '../triggers/wakeups.ts';
import type { StreamOptions } from './stream.ts';

/** One connected client of the feed (an open stream). */
export interface FeedSubscriber {
  /** An event of its workspace, after the position `subscribe` answered; called in order, never twice for one event. */
  deliver(event: FeedEvent): void;
  /** The feed is closing (the process stops): end the stream. */
  close(): void;
}

export type FeedOptions = {
  /** Open streams per workspace in this process; one more answers 429 (default 100). */
  streamsPerWorkspace?: number;
  /** The safety net under the notifications: a read at least this often while anyone listens (default 1 s). */
  pollMs?: number;
  /** Rows per read (default 500). */
  batchSize?: number;
  /** Settings of each client's stream (keep-alive, unread bytes, key checks). */
  stream?: StreamOptions;
};

/**
 * The event feed of one API process: one reader of the outbox for every client. Woken by the
 * outbox's notification (and a poll as a safety net, and soon again while committed rows wait
 * behind a running transaction), it reads the rows after its position once and hands each
 * event to the clients of its workspace. It reads only while someone listens: the first client
 * after a quiet spell starts it at the newest event.
 */
export class EventFeed {
  private readonly source: FeedSource;
  private readonly wakeups: Wakeups | undefined;
  private readonly logger: Logger;
  private readonly streamsPerWorkspace: number;
  private readonly pollMs: number;
  private readonly batchSize: number;
  readonly streamOptions: StreamOptions;

  private readonly subscribers = new Map<string, Set<FeedSubscriber>>();
  /** Where the reads have got to; null while nobody listens. */
  private position: Position | null = null;
  /** Bumped when the feed goes quiet: a read begun before belongs to the last spell and is dropped. */
  private spell = 0;
  private starting: Promise<void> | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private listening = false;
  private closed = false;
  private poll: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private retryMs = 0;
  private failing = false;

  constructor(deps: { source: FeedSource; wakeups?: Wakeups; logger: Logger } & FeedOptions) {
    this.source = deps.source;
    this.wakeups = deps.wakeups;
    this.logger = deps.logger;
    this.streamsPerWorkspace = deps.streamsPerWorkspace ?? 100;
    this.pollMs = deps.pollMs ?? 1_000;
    this.batchSize = deps.batchSize ?? 500;
    this.streamOptions = deps.stream ?? {};
  }

  /** The rows of the source (for a client's catch-up, read apart from the live reads). */
  get store(): FeedSource {
    return this.source;
  }

  /** Open streams, by workspace. */
  streams(workspaceId: string): number {
    return this.subscribers.get(workspaceId)?.size ?? 0;
  }

  /**
   * Registers a client of the workspace. Answers the feed's position: every event after it is
   * delivered to the subscriber; what lies before it is the client's to read (its catch-up).
   * 429 beyond the workspace's limit, 503 once the feed is closing.
   */
  async subscribe(workspaceId: string, subscriber: FeedSubscriber): Promise<{ from: Position; unsubscribe: () => void }> {
    if (this.closed) throw unavailable('The server is shutting down; reconnect.');
    const clients = this.subscribers.get(workspaceId) ?? new Set<FeedSubscriber>();
    if (clients.size >= this.streamsPerWorkspace) throw tooManyStreams(this.streamsPerWorkspace);
    this.subscribers.set(workspaceId, clients.add(subscriber));
    const unsubscribe = () => this.unsubscribe(workspaceId, subscriber);
    try {
      this.listen();
      while (this.position === null) {
        if (this.closed) throw unavailable('The server is shutting down; reconnect.');
        await (this.starting ??= this.start().finally(() => (this.starting = null)));
      }
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return { from: this.position, unsubscribe };
  }

  /** Ends every stream and stops reading; later subscriptions answer 503. */
  async close(): Promise<void> {
    this.closed = true;
    this.quiet();
    // Each stream unsubscribes as it ends.
    for (const clients of [...this.subscribers.values()]) for (const subscriber of [...clients]) subscriber.close();
    this.subscribers.clear();
    await this.wakeups?.stop();
    await this.reading;
  }

  private unsubscribe(workspaceId: string, subscriber: FeedSubscriber): void {
    const clients = this.subscribers.get(workspaceId);
    if (!clients?.delete(subscriber)) return;
    if (clients.size === 0) this.subscribers.delete(workspaceId);
    if (this.subscribers.size === 0) this.quiet();
  }

  private listen(): void {
    if (this.listening || !this.wakeups) return;
    this.listening = true;
    this.wakeups.start(() => this.kick());
  }

  /** Reads begin at the newest row readable now; each stream leaves out for itself what is older than its client (src/feed/stream.ts). */
  private async start(): Promise<void> {
    const spell = this.spell;
    const head = await this.source.head();
    if (spell !== this.spell || this.closed || this.subscribers.size === 0) return;
    this.position = head;
    this.poll = setInterval(() => this.kick(), this.pollMs);
    this.poll.unref();
    // Rows that committed behind a running transaction before the head are read as soon as they may be.
    this.kick();
  }

  /** Nobody listens: stop reading until someone does. */
  private quiet(): void {
    this.spell += 1;
    this.position = null;
    if (this.poll) clearInterval(this.poll);
    if (this.retry) clearTimeout(this.retry);
    this.poll = this.retry = null;
    this.retryMs = 0;
  }

  /** Reads now, or once the read under way has finished. */
  private kick(): void {
    if (this.position === null || this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.readAgain = false;
    this.reading = this.readAll().finally(() => {
      this.reading = null;
      if (this.readAgain) this.kick();
    });
  }

  private async readAll(): Promise<void> {
    const spell = this.spell;
    let heldBack = false;
    try {
      for (;;) {
        const from = this.position;
        if (from === null) return;
        const read = await this.source.after(from, this.batchSize, [...this.subscribers.keys()]);
        const rows = await this.withPayloads(read.rows);
        if (spell !== this.spell || this.closed) return;
        this.fanOut(feedEvents(rows));
        if (rows.length > 0) this.position = rows[rows.length - 1].position;
        heldBack = read.heldBack;
        if (rows.length < this.batchSize) break;
      }
      if (this.failing) this.logger.info('event feed reads again');
      this.failing = false;
    } catch (err) {
      // The database is away: clients stay connected and get everything once it is back (the poll retries).
      if (!this.failing) this.logger.warn('event feed read failed; will retry', errorFields(err));
      this.failing = true;
      return;
    }
    this.retryWhileHeldBack(heldBack);
  }

  /**
   * A client that subscribed while a read was under way: the rows of its workspace came without
   * their payloads (the read asked for the workspaces of that moment), so they are read now.
   */
  private async withPayloads(rows: OutboxRow[]): Promise<OutboxRow[]> {
    const missing = rows.filter((r) => r.payload === null && STREAMED[r.type] && this.subscribers.has(r.workspaceId)).map((r) => r.position.id);
    if (missing.length === 0) return rows;
    const payloads = await this.source.payloads(missing);
    return rows.map((r) => (r.payload === null && payloads.has(r.position.id) ? { ...r, payload: payloads.get(r.position.id)! } : r));
  }

  private fanOut(events: FeedEvent[]): void {
    for (const event of events) {
      const clients = this.subscribers.get(event.workspaceId);
      if (clients) for (const subscriber of [...clients]) subscriber.deliver(event);
    }
  }

  /**
   * Committed rows wait behind a transaction still running (which may have written nothing to
   * the outbox, so no notification will say when it ends): read again soon, then less often.
   */
  private retryWhileHeldBack(heldBack: boolean): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    if (!heldBack || this.position === null) {
      this.retryMs = 0;
      return;
    }
    this.retryMs = Math.min(this.retryMs === 0 ? 25 : this.retryMs * 2, this.pollMs);
    this.retry = setTimeout(() => this.kick(), this.retryMs);
    this.retry.unref();
  }
}
