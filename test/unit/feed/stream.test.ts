import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { START, type Position } from '../../../src/feed/cursor.ts';
import { feedEvents, type FeedEvent, type OutboxRow } from '../../../src/feed/events.ts';
import { EventStream, type StreamOutput } from '../../../src/feed/stream.ts';
import { createLogger } from '../../../src/logger.ts';
import { eventually } from '../../helpers/poll.ts';

const WORKSPACE = 'aaaaaaaa-0000-4000-8000-000000000000';

/** A response that keeps what is written; `unread` bytes stay in its buffer until `read()` (a slow client). */
class FakeResponse extends EventEmitter implements StreamOutput {
  text = '';
  unread = 0;
  ended: 'end' | 'destroy' | null = null;
  private readonly slow: boolean;
  constructor(slow = false) {
    super();
    this.slow = slow;
  }
  get writableLength(): number {
    return this.unread;
  }
  write(chunk: string): boolean {
    this.text += chunk;
    if (this.slow) this.unread += chunk.length;
    return this.unread < 16 * 1024;
  }
  read(): void {
    this.unread = 0;
    this.emit('drain');
  }
  end(): void {
    this.ended = 'end';
    this.emit('close');
  }
  destroy(): void {
    this.ended = 'destroy';
    this.emit('close');
  }
  /** The subjects of the events written, in order. */
  subjects(): string[] {
    return [...this.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]).ticket.subject);
  }
}

const row = (txid: number, subject: string, padding = ''): OutboxRow => ({
  position: { txid: BigInt(txid), at: 1_795_000_000_000 + txid, id: `00000000-0000-4000-8000-${String(txid).padStart(12, '0')}` },
  workspaceId: WORKSPACE,
  type: 'ticket_created',
  ticketId: `11111111-0000-4000-8000-${String(txid).padStart(12, '0')}`,
  // `padding` makes the event as large as a ticket with a long name.
  payload: { ticket: { id: `11111111-0000-4000-8000-${String(txid).padStart(12, '0')}`, subject, customerName: padding } },
});
const event = (txid: number, subject: string, padding = ''): FeedEvent => feedEvents([row(txid, subject, padding)])[0];
const at = (txid: number): Position => row(txid, '').position;

function stream(out: FakeResponse, opts: { authorized?: () => Promise<boolean>; keepAliveMs?: number; maxBufferedBytes?: number; keyCheckMs?: number; pageSize?: number } = {}) {
  let unsubscribed = false;
  const s = new EventStream(out, { stillAuthorized: opts.authorized ?? (async () => true), logger: createLogger('silent'), keepAliveMs: 60_000, ...opts });
  return { s, subscription: (from: Position) => ({ from, unsubscribe: () => (unsubscribed = true) }), unsubscribed: () => unsubscribed };
}

/** The outbox of one workspace, read in pages as a catch-up reads it. */
const outbox = (rows: OutboxRow[]) => ({
  pages: 0,
  async between(_workspaceId: string, from: Position, upTo: Position, limit: number) {
    this.pages += 1;
    const after = (r: OutboxRow, p: Position) => r.position.txid > p.txid || (r.position.txid === p.txid && r.position.id > p.id);
    return rows.filter((r) => after(r, from) && !after(r, upTo)).slice(0, limit);
  },
});

describe('one client’s event stream', () => {
  it('sends what the client missed (page by page), then the events that came meanwhile, without a gap or a repeat', async () => {
    const out = new FakeResponse();
    const { s, subscription } = stream(out, { pageSize: 2 });
    const source = outbox([row(10, 'seen'), row(11, 'missed 1'), row(12, 'missed 2'), row(13, 'missed 3')]);
    // Subscribed when the feed stood at 13; 14 arrives while the stream catches up.
    const begun = s.begin(subscription(at(13)), { after: at(10) }, source, WORKSPACE);
    s.deliver(event(14, 'live 1'));
    await begun;
    s.deliver(event(15, 'live 2'));
    await eventually(async () => (out.subjects().length === 5 ? true : undefined), 2_000);
    expect(out.subjects()).toEqual(['missed 1', 'missed 2', 'missed 3', 'live 1', 'live 2']);
    expect(source.pages).toBe(2);
    // Each event with its id, its type and its data, then a blank line.
    expect(out.text.split('\n\n')[0]).toMatch(/^id: [A-Za-z0-9_-]{32}\nevent: ticket\.created\ndata: \{.*\}$/);
  });

  it('with a cursor ahead of the feed, skips the live events up to it', async () => {
    const out = new FakeResponse();
    const { s, subscription } = stream(out);
    const source = outbox([]);
    await s.begin(subscription(at(20)), { after: at(22) }, source, WORKSPACE);
    for (const [txid, subject] of [[21, 'old 1'], [22, 'old 2'], [23, 'new']] as const) s.deliver(event(txid, subject));
    await eventually(async () => (out.subjects().length === 1 ? true : undefined), 2_000);
    expect(out.subjects()).toEqual(['new']);
    expect(source.pages).toBe(0);
  });

  it('without a cursor, skips events of transactions that had committed when it opened, however late they come', async () => {
    const out = new FakeResponse();
    const { s, subscription } = stream(out);
    // Delivered before the stream knew when it opened: 31 had committed then, 33 was still running.
    s.deliver(event(31, 'before'));
    s.deliver(event(33, 'running then'));
    await s.begin(subscription(START), { committedBefore: { xmin: 33n, xmax: 35n, running: new Set([33n]) } }, outbox([]), WORKSPACE);
    s.deliver(event(34, 'committed before too'));
    s.deliver(event(36, 'after'));
    await eventually(async () => (out.subjects().length === 2 ? true : undefined), 2_000);
    expect(out.subjects()).toEqual(['running then', 'after']);
  });

  it('closes the stream of a client that leaves more than the limit unread, and keeps a fast one going with the same traffic', async () => {
    const body = 'x'.repeat(10_000);
    const slow = new FakeResponse(true);
    const fast = new FakeResponse(false);
    const a = stream(slow, { maxBufferedBytes: 50_000 });
    const b = stream(fast, { maxBufferedBytes: 50_000 });
    await a.s.begin(a.subscription(START), { after: START }, outbox([]), WORKSPACE);
    await b.s.begin(b.subscription(START), { after: START }, outbox([]), WORKSPACE);
    for (let i = 1; i <= 20; i++) {
      a.s.deliver(event(i, `t-${i}`, body));
      b.s.deliver(event(i, `t-${i}`, body));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(slow.ended).toBe('destroy');
    expect(a.unsubscribed()).toBe(true);
    expect(slow.subjects().length).toBeLessThan(10);
    // A single event larger than the limit still goes through to a client that keeps up.
    b.s.deliver(event(21, 'big', 'y'.repeat(200_000)));
    await eventually(async () => (fast.subjects().length === 21 ? true : undefined), 2_000);
    expect(fast.ended).toBeNull();
  });

  it('catches up at the client’s pace: it waits for the connection to drain between writes', async () => {
    const out = new FakeResponse(true);
    const { s, subscription } = stream(out, { maxBufferedBytes: 1_000_000 });
    const rows = Array.from({ length: 10 }, (_, i) => row(40 + i, `m-${i}`, 'z'.repeat(10_000)));
    const begun = s.begin(subscription(at(49)), { after: at(39) }, outbox(rows), WORKSPACE);
    await eventually(async () => (out.subjects().length >= 2 ? true : undefined), 2_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(out.subjects().length).toBe(2);
    while (out.subjects().length < 10) {
      out.read();
      await new Promise((resolve) => setImmediate(resolve));
    }
    out.read();
    await begun;
    expect(out.subjects()).toEqual(rows.map((_, i) => `m-${i}`));
  });

  it('sends a keep-alive comment while quiet', async () => {
    const out = new FakeResponse();
    const { s, subscription } = stream(out, { keepAliveMs: 20 });
    await s.begin(subscription(START), { after: START }, outbox([]), WORKSPACE);
    await eventually(async () => (out.text.split(': keep-alive\n\n').length >= 3 ? true : undefined), 2_000);
    s.end('test over');
  });

  it('ends when the key is no longer valid, at the next event or keep-alive', async () => {
    let valid = true;
    const out = new FakeResponse();
    const { s, subscription, unsubscribed } = stream(out, { authorized: async () => valid, keyCheckMs: 0 });
    await s.begin(subscription(START), { after: START }, outbox([]), WORKSPACE);
    s.deliver(event(1, 'while valid'));
    await eventually(async () => (out.subjects().length === 1 ? true : undefined), 2_000);
    valid = false;
    s.deliver(event(2, 'after the revocation'));
    await eventually(async () => (out.ended ? true : undefined), 2_000);
    expect(out.ended).toBe('end');
    expect(out.subjects()).toEqual(['while valid']);
    expect(unsubscribed()).toBe(true);
  });

  it('ends when the client goes, also before it began, and then unsubscribes at once', async () => {
    const out = new FakeResponse();
    const { s, subscription, unsubscribed } = stream(out);
    out.emit('close');
    expect(s.ended).toBe(true);
    await s.begin(subscription(START), { after: START }, outbox([]), WORKSPACE);
    expect(unsubscribed()).toBe(true);
    expect(out.text).toBe('');
    expect(out.ended).toBeNull();
  });

  it('ends when the server stops', async () => {
    const out = new FakeResponse();
    const { s, subscription, unsubscribed } = stream(out);
    await s.begin(subscription(START), { after: START }, outbox([]), WORKSPACE);
    s.close();
    expect(out.ended).toBe('end');
    expect(unsubscribed()).toBe(true);
  });
});
