import { afterEach } from 'vitest';
import { eventually } from './poll.ts';

/** One server-sent event as a client's parser hands it over (`data` parsed as JSON). */
export type StreamedEvent = { id: string; event: string; data: any };

/**
 * A client of GET /api/v1/events reading with fetch streaming, as a browser console does:
 * `events` fills as events arrive, `comments` with comment lines (`: keep-alive`), `ended`
 * resolves when the server ends the stream. Every stream opened is closed after each test.
 */
export class EventStreamClient {
  readonly events: StreamedEvent[] = [];
  readonly comments: string[] = [];
  readonly ended: Promise<void>;
  private isEnded = false;
  readonly headers: Headers;
  private readonly abort: AbortController;

  private constructor(headers: Headers, body: ReadableStream<Uint8Array>, abort: AbortController) {
    this.headers = headers;
    this.abort = abort;
    this.ended = this.read(body).finally(() => (this.isEnded = true));
  }

  get isOpen(): boolean {
    return !this.isEnded;
  }

  /**
   * Opens the stream; a refusal (any status but 200) answers `{ status, body }` instead.
   */
  static async open(
    baseUrl: string,
    opts: { key?: string; lastEventId?: string; query?: string; headers?: Record<string, string> } = {},
  ): Promise<EventStreamClient> {
    const abort = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const res = await fetch(`${baseUrl}/api/v1/events${opts.query ? `?${opts.query}` : ''}`, { headers, signal: abort.signal });
    if (res.status !== 200) {
      const text = await res.text();
      throw new StreamRefused(res.status, res.headers, text ? JSON.parse(text) : undefined);
    }
    const client = new EventStreamClient(res.headers, res.body!, abort);
    open.add(client);
    return client;
  }

  /** Waits until `count` events have arrived in all; answers them all. */
  async received(count: number, timeoutMs = 20_000): Promise<StreamedEvent[]> {
    return eventually(async () => (this.events.length >= count ? [...this.events] : undefined), timeoutMs, `${count} events (got ${this.events.length}: ${this.events.map((e) => e.event).join(', ')})`);
  }

  /** The `count` events from index `from` on, once they have arrived. */
  async next(from: number, count: number, timeoutMs = 20_000): Promise<StreamedEvent[]> {
    return (await this.received(from + count, timeoutMs)).slice(from, from + count);
  }

  close(): void {
    this.abort.abort();
    open.delete(this);
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let fields: Partial<Record<'id' | 'event' | 'data', string>> = {};
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (fields.data !== undefined) this.events.push({ id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) });
            fields = {};
          } else if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim());
          } else {
            const colon = line.indexOf(':');
            const name = line.slice(0, colon) as 'id' | 'event' | 'data';
            const value = line.slice(colon + 1).replace(/^ /, '');
            fields[name] = name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
          }
        }
      }
    } catch {
      /* aborted by close(), or the server cut the connection */
    }
  }
}

/** A request GET /api/v1/events answered with something else than a stream. */
export class StreamRefused extends Error {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;

  constructor(status: number, headers: Headers, body: any) {
    super(`GET /api/v1/events answered ${status}: ${JSON.stringify(body)}`);
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/** The refusal of opening a stream with these options. */
export async function refusal(baseUrl: string, opts: Parameters<typeof EventStreamClient.open>[1]): Promise<StreamRefused> {
  try {
    const client = await EventStreamClient.open(baseUrl, opts);
    client.close();
  } catch (err) {
    if (err instanceof StreamRefused) return err;
    throw err;
  }
  throw new Error('the stream was opened, not refused');
}

const open = new Set<EventStreamClient>();
afterEach(() => {
  for (const client of open) client.close();
  open.clear();
});
