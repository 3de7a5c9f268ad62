/**
 * Where an event stands in the feed's order: the outbox row's writing transaction, its time and
 * its id, compared in that order (the order of the index outbox_events_feed_idx). `at` is
 * milliseconds since the epoch (the column keeps milliseconds), -Infinity before any row of a
 * transaction.
 */
export type Position = { txid: bigint; at: number; id: string };

/** Before every event the feed can stream (rows written before the outbox recorded transactions have none). */
export const START: Position = { txid: 0n, at: -Infinity, id: '00000000-0000-0000-0000-000000000000' };

/** Negative, zero or positive as `a` comes before, at or after `b`. */
export function comparePositions(a: Position, b: Position): number {
  if (a.txid !== b.txid) return a.txid < b.txid ? -1 : 1;
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** What a cursor names: the event's outbox row (`id`) and its writing transaction. */
export type Cursor = { txid: bigint; id: string };

const CURSOR_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/**
 * The opaque id of an event (its SSE `id:`): the transaction (8 bytes) and the row id (16
 * bytes), base64url, 32 characters.
 */
export function encodeCursor(cursor: Cursor): string {
  const bytes = Buffer.alloc(24);
  bytes.writeBigUInt64BE(cursor.txid, 0);
  Buffer.from(cursor.id.replace(/-/g, ''), 'hex').copy(bytes, 8);
  return bytes.toString('base64url');
}

/** The cursor `text` encodes, or null when it is not one encodeCursor could have written. */
export function decodeCursor(text: string): Cursor | null {
  if (!CURSOR_PATTERN.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  const txid = bytes.readBigUInt64BE(0);
  if (txid === 0n) return null;
  const hex = bytes.subarray(8).toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { txid, id };
}

/**
 * A PostgreSQL snapshot (`pg_current_snapshot()`): which transactions had committed when it was
 * taken. A client that connects without a cursor is sent only the events of transactions that
 * had not: those committed after its stream opened, whatever order they are read in.
 */
export type Snapshot = { xmin: bigint; xmax: bigint; running: ReadonlySet<bigint> };

/** `xmin:xmax:xip,…` as PostgreSQL prints a pg_snapshot. */
export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, running = ''] = text.split(':');
  return { xmin: BigInt(xmin), xmax: BigInt(xmax), running: new Set(running.split(',').filter(Boolean).map(BigInt)) };
}

/** Whether the transaction `txid` had ended when `snapshot` was taken (for a transaction that wrote rows: committed). */
export function endedBefore(snapshot: Snapshot, txid: bigint): boolean {
  return txid < snapshot.xmin || (txid < snapshot.xmax && !snapshot.running.has(txid));
}
