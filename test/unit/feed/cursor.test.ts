import { describe, expect, it } from 'vitest';
import { comparePositions, decodeCursor, encodeCursor, endedBefore, parseSnapshot, START, type Position } from '../../../src/feed/cursor.ts';

const ID = '3f2b8c1e-6d4a-4f7b-9c2e-8a1d5b7e4c90';

describe('the event cursor', () => {
  it('encodes a transaction and an event id as 32 opaque base64url characters, and decodes them back', () => {
    for (const txid of [1n, 845n, 2n ** 32n + 7n, 2n ** 64n - 1n]) {
      const cursor = encodeCursor({ txid, id: ID });
      expect(cursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(cursor).not.toContain(ID.slice(0, 8));
      expect(decodeCursor(cursor)).toEqual({ txid, id: ID });
    }
    expect(encodeCursor({ txid: 845n, id: ID })).not.toBe(encodeCursor({ txid: 846n, id: ID }));
  });

  it('refuses what it did not write: other lengths and characters, padding, transaction 0', () => {
    const cursor = encodeCursor({ txid: 845n, id: ID });
    for (const bad of ['', 'not-a-cursor', cursor.slice(1), `${cursor}A`, `${cursor.slice(0, 31)}=`, `${cursor.slice(0, 31)}+`, ` ${cursor.slice(1)}`, encodeCursor({ txid: 0n, id: ID })]) {
      expect(decodeCursor(bad), bad).toBeNull();
    }
  });

  it('orders positions by transaction, then time, then id; START comes first', () => {
    const at = Date.parse('2026-11-28T09:00:00.000Z');
    const positions: Position[] = [
      { txid: 9n, at: at + 5, id: 'b' },
      { txid: 10n, at: at - 1_000, id: 'a' },
      { txid: 9n, at: at + 5, id: 'a' },
      { txid: 9n, at, id: 'z' },
      START,
      { txid: 10n, at: -Infinity, id: START.id },
    ];
    expect([...positions].sort(comparePositions)).toEqual([START, positions[3], positions[2], positions[0], positions[5], positions[1]]);
    expect(comparePositions(positions[0], { ...positions[0] })).toBe(0);
  });

  it('tells from a snapshot which transactions had ended when it was taken', () => {
    // 100 and 103 were running; 105 and later had not begun.
    const snapshot = parseSnapshot('100:105:100,103');
    expect(snapshot).toEqual({ xmin: 100n, xmax: 105n, running: new Set([100n, 103n]) });
    expect([98n, 99n, 100n, 101n, 102n, 103n, 104n, 105n, 200n].filter((txid) => endedBefore(snapshot, txid))).toEqual([98n, 99n, 101n, 102n, 104n]);
    expect(parseSnapshot('7:7:')).toEqual({ xmin: 7n, xmax: 7n, running: new Set() });
  });
});
