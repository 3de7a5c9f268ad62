import { createHash, randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else can never name a row (and answers 404, not a database error). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export const newId = (): string => randomUUID();

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
