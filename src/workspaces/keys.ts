import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `dfk_<lookup>_<secret>`. The lookup (16 hex chars) finds the row; the
 * secret (256 random bits) is only ever stored as a SHA-256 hash and compared in constant time.
 */
export const KEY_PREFIX = 'dfk_';
const KEY_PATTERN = /^dfk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export type GeneratedKey = { key: string; lookup: string; secretHash: string };

export function generateKey(): GeneratedKey {
  const lookup = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { key: `${KEY_PREFIX}${lookup}_${secret}`, lookup, secretHash: hashSecret(secret) };
}

export function parseKey(key: string): { lookup: string; secret: string } | null {
  const m = KEY_PATTERN.exec(key);
  return m ? { lookup: m[1], secret: m[2] } : null;
}

/**
 * The lookup of a key named by its public part (`dfk_<16 hex>`) or given whole (then only its
 * public part is used); null for anything else.
 */
export function parseKeyReference(reference: string): string | null {
  const publicPart = /^dfk_([0-9a-f]{16})$/.exec(reference);
  if (publicPart) return publicPart[1];
  return parseKey(reference)?.lookup ?? null;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
