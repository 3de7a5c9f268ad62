import { createHash } from 'node:crypto';

/**
 * JSON text with the keys of every object sorted and no whitespace: two bodies that parse to
 * the same value give the same text, whatever their key order, spacing, number spelling
 * (`1.0`, `1e0`) or string escapes. Array order counts. Bodies reach here parsed and checked
 * (at most 64 levels deep), so recursion is safe.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What "the same body" means for an idempotency key: the SHA-256 of its canonical JSON. */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
