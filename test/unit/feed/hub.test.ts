import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { comparePositions, START, type Position } from '../../../src/feed/cursor.ts';
import type { FeedEvent, OutboxRow } from '../../../src/feed/events.ts';
import { EventFeed, type FeedSubscriber } from '../../../src/feed/hub.ts';
import type { FeedSource } from '../../../src/feed/store.ts';
import { createLogger } from '../../../src/logger.ts';
import { eventually } from '../../helpers/poll.ts';

const A = 'aaaaaaaa-0000-4000-8000-000000000000';
const B = 'bbbbbbbb-0000-4000-8000-000000000000';

/** The outbox as a list: every row readable unless `heldBack` says rows wait behind a transaction. */
class FakeOutbox implements FeedSource {
  readonly rows: OutboxRow[] = [];
  reads = 0;
  heldBack = false;
  failing = false;
  /** When set, reads wait for it. */
  gate: Promise<void> | null = null;
  private txid = 100n;

  add(workspaceId: string, subject: string): OutboxRow {
    const txid = ++this.txid;
    const row: OutboxRow = {
      position: { txid, at: 1_795_000_000_000 + Number(txid), id: `00000000-0000-4000-8000-${String(txid).padStart(12, '0')}` },
      workspaceId,
      type: 'ticket_created',
      ticketId: `11111111-0000-4000-8000-${String(txid).padStart(12, '0')}`,
      payload: { ticket: { id: `11111111-0000-4000-8000-${String(txid).padStart(12, '0')}`, subject } },
    };
    this.rows.push(row);
    return row;
  }

  async head(): Promise<Position> {
    return this.rows.at(-1)?.position ?? START;
  }

  async after(from: Position, limit: number, workspaceIds: readonly string[]) {
    this.reads += 1;
    const rows = this.rows.filter((r) => comparePositions(r.position, from) > 0).slice(0, limit);
    await this.gate;
    if (this.failing) throw new Error('connection refused');
    return { rows: rows.map((r) => (workspaceIds.includes(r.workspaceId) ? r : { ...r, payload: null })), heldBack: this.heldBack };
  }

  async payloads(ids: readonly string[]) {
    return new Map(this.rows.filter((r) => ids.includes(r.position.id)).map((r) => [r.position.id, r.payload!]));
  }

  async between(): Promise<OutboxRow[]> {
    return [];
  }

  async locate(): Promise<Position | null> {
    return null;
  }

  async snapshot() {
    return { xmin: 0n, xmax: 0n, running: new Set<bigint>() };
  }
}

/** A client: the subjects of the tickets it was sent, in order. */
class Client implements FeedSubscriber {
  readonly subjects: string[] = [];
  closed = false;
  deliver(event: FeedEvent): void {
    this.subjects.push(JSON.parse(event.frame.split('\ndata: ')[1]).ticket.subject);
  }
  close(): void {
    this.closed = true;
  }
}

function setup(opts: { streamsPerWorkspace?: number; batchSize?: number } = {}) {
  const outbox = new FakeOutbox();
  let wake: () => void = () => {};
  const feed = new EventFeed({
    source: outbox,
    wakeups: { start: (onWake) => (wake = onWake), stop: async () => {} },
    logger: createLogger('silent'),
    pollMs: 60_000,
    ...opts,
  });
  return { outbox, feed, wake: () => wake() };
}

describe('the event feed of a process', () => {
  it('reads each row once and hands it to the clients of its workspace only, in order, from where each subscribed', async () => {
    const { outbox, feed, wake } = setup();
    outbox.add(A, 'before anyone listened');
    const [a1, a2, b] = [new Client(), new Client(), new Client()];
    const first = await feed.subscribe(A, a1);
    expect(first.from).toEqual(outbox.rows[0].position);
    await feed.subscribe(B, b);
    outbox.add(A, 'a-1');
    outbox.add(B, 'b-1');
    wake();
    await eventually(async () => (b.subjects.length === 1 ? true : undefined), 2_000);
    await feed.subscribe(A, a2);
    outbox.add(A, 'a-2');
    wake();
    await eventually(async () => (a2.subjects.length === 1 ? true : undefined), 2_000);
    expect(a1.subjects).toEqual(['a-1', 'a-2']);
    expect(a2.subjects).toEqual(['a-2']);
    expect(b.subjects).toEqual(['b-1']);
    await feed.close();
  });

  it('reads a batch after another until none is full, and once per wake however many clients listen', async () => {
    const { outbox, feed, wake } = setup({ batchSize: 2 });
    const clients = [new Client(), new Client(), new Client()];
    for (const client of clients) await feed.subscribe(A, client);
    const before = outbox.reads;
    for (let i = 1; i <= 5; i++) outbox.add(A, `t-${i}`);
    wake();
    await eventually(async () => (clients.every((c) => c.subjects.length === 5) ? true : undefined), 2_000);
    expect(clients[2].subjects).toEqual(['t-1', 't-2', 't-3', 't-4', 't-5']);
    expect(outbox.reads - before).toBe(3);
    await feed.close();
  });

  it('gives a client that subscribes while a read is under way the rows of that read, with their payloads', async () => {
    const { outbox, feed, wake } = setup();
    const a = new Client();
    await feed.subscribe(A, a);
    let open: () => void = () => {};
    outbox.gate = new Promise((resolve) => (open = resolve));
    outbox.add(B, 'b-1');
    wake();
    await eventually(async () => (outbox.reads > 0 ? true : undefined), 2_000);
    // The read under way asked for A's payloads only.
    const b = new Client();
    const { from } = await feed.subscribe(B, b);
    expect(comparePositions(from, outbox.rows[0].position)).toBeLessThan(0);
    outbox.gate = null;
    open();
    await eventually(async () => (b.subjects.length === 1 ? true : undefined), 2_000);
    expect(b.subjects).toEqual(['b-1']);
    expect(a.subjects).toEqual([]);
    await feed.close();
  });

  it('reads nothing while nobody listens, and starts the next client at the newest row', async () => {
    const { outbox, feed, wake } = setup();
    const first = await feed.subscribe(A, new Client());
    first.unsubscribe();
    const reads = outbox.reads;
    outbox.add(A, 'while nobody listened');
    wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outbox.reads).toBe(reads);
    const late = new Client();
    const { from } = await feed.subscribe(A, late);
    expect(from).toEqual(outbox.rows[0].position);
    outbox.add(A, 'after');
    wake();
    await eventually(async () => (late.subjects.length === 1 ? true : undefined), 2_000);
    expect(late.subjects).toEqual(['after']);
    await feed.close();
  });

  it('reads again soon, unwoken, while rows wait behind a running transaction', async () => {
    const { outbox, feed, wake } = setup();
    const a = new Client();
    await feed.subscribe(A, a);
    outbox.heldBack = true;
    wake();
    await eventually(async () => (outbox.reads >= 1 ? true : undefined), 2_000);
    // The transaction ends: its row and those behind it become readable, and no notification says so.
    outbox.add(A, 'committed late');
    outbox.heldBack = false;
    await eventually(async () => (a.subjects.length === 1 ? true : undefined), 2_000);
    await feed.close();
  });

  it('keeps its clients through a failed read and sends them everything once reads work again', async () => {
    const { outbox, feed, wake } = setup();
    const a = new Client();
    await feed.subscribe(A, a);
    outbox.failing = true;
    outbox.add(A, 'during the outage');
    wake();
    await eventually(async () => (outbox.reads >= 1 ? true : undefined), 2_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(a.subjects).toEqual([]);
    outbox.failing = false;
    outbox.add(A, 'after it');
    wake();
    await eventually(async () => (a.subjects.length === 2 ? true : undefined), 2_000);
    expect(a.subjects).toEqual(['during the outage', 'after it']);
    expect(a.closed).toBe(false);
    await feed.close();
  });

  it('refuses one stream more than a workspace may have with 429 too_many_streams; other workspaces are not counted', async () => {
    const { feed } = setup({ streamsPerWorkspace: 2 });
    const first = await feed.subscribe(A, new Client());
    await feed.subscribe(A, new Client());
    const refused = await feed.subscribe(A, new Client()).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 429, code: 'too_many_streams', headers: { 'Retry-After': '5' } });
    expect(feed.streams(A)).toBe(2);
    await feed.subscribe(B, new Client());
    first.unsubscribe();
    await feed.subscribe(A, new Client());
    await feed.close();
  });

  it('on close ends every stream and refuses new ones with 503', async () => {
    const { feed } = setup();
    const clients = [new Client(), new Client()];
    await feed.subscribe(A, clients[0]);
    await feed.subscribe(B, clients[1]);
    await feed.close();
    expect(clients.map((c) => c.closed)).toEqual([true, true]);
    expect(await feed.subscribe(A, new Client()).catch((err: unknown) => err)).toMatchObject({ status: 503, code: 'unavailable' });
  });
});
