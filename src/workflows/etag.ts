// Entity tags of a workflow (docs/contract.md §4, "Concurrent edits"): GET answers one, PATCH
// takes it back in If-Match, so two people editing the same workflow cannot overwrite each
// other without noticing.
import { createHash } from 'node:crypto';
import { validationFailed } from '../errors.ts';

/**
 * A strong ETag of the workflow as GET shows it: a hash of its canonical JSON. It changes
 * whenever anything GET shows changes (every successful PATCH moves `updatedAt`), and two reads
 * of an unchanged workflow always get the same one, whatever order PostgreSQL keeps keys in.
 */
export function workflowEtag(presented: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(presented)).digest('base64url').slice(0, 27)}"`;
}

/** JSON with object keys sorted: PostgreSQL jsonb does not keep key order, so compare (and hash) graphs this way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** What an If-Match header asks for: any current state (`*`), or one of these entity tags. */
export type IfMatch = { any: true } | { any: false; tags: string[] };

// An entity-tag (RFC 9110 §8.8.3): optionally weak, then a quoted string of visible characters but `"`.
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e]*"$/;

/**
 * Parses If-Match (absent: undefined). A list of tags may come in one header or several (Koa
 * joins them with commas). Weak tags are accepted but never match: If-Match compares strongly.
 * Anything else is a 400 naming the header, so a client's typo is not mistaken for a conflict.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return { any: true };
  const tags = value.split(',').map((t) => t.trim());
  if (value === '' || !tags.every((t) => ENTITY_TAG.test(t))) {
    throw validationFailed([{ path: 'If-Match', message: 'If-Match must be * or a list of quoted entity tags, like "3q2-7…" as ETag gave it.' }]);
  }
  return { any: false, tags };
}

export function ifMatchHolds(ifMatch: IfMatch, currentEtag: string): boolean {
  return ifMatch.any || ifMatch.tags.includes(currentEtag);
}
