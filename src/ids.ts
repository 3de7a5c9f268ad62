import { createHash, randomBytes, randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else can never name a row (and answers 404, not a database error). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export const newId = (): string => randomUUID();

let lastMs = 0;
let sequence = 0;

/**
 * A UUID version 7: the time in milliseconds first, so that ids sort as they were made (within
 * one process strictly, by a counter within one millisecond; across processes by their clocks).
 * For rows listed in the order they were written that have no sequence of their own.
 */
export function newTimeOrderedId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = randomBytes(2).readUInt16BE() & 0x1ff; // leaves room to count up within the millisecond
  } else {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUID derived from a name (RFC 4122 version 5 layout over SHA-1): the same name always
 * gives the same id, which makes "one per name" inserts idempotent.
 */
export function uuidFromName(name: string): string {
  const bytes = createHash('sha1').update('deskflow:').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
