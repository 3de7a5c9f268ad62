import { z } from 'zod';

/**
 * The Idempotency-Key request header (docs/contract.md §1, Idempotent writes): defined here
 * once, for the middleware that enforces it and for the interface description.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Set to `true` on an answer that repeats the stored first answer to a key. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';

/** How long a key is remembered; after that the same key counts as new. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The error code of a key sent again with another request (endpoint or body). */
export const IDEMPOTENCY_KEY_REUSED = 'idempotency_key_reused';

/** The endpoints that honour the header; every other endpoint ignores it. */
export const IDEMPOTENT_ENDPOINTS = [
  { method: 'POST', path: '/api/v1/tickets' },
  { method: 'POST', path: '/api/v1/tickets/:id/messages' },
  { method: 'POST', path: '/api/v1/tickets/:id/replies' },
  { method: 'POST', path: '/api/workflows/:id/trigger' },
  { method: 'POST', path: '/api/approvals/:id/decision' },
] as const;

/**
 * 1-255 visible ASCII characters (`!` to `~`): UUIDs, ULIDs, base64 and the like fit; spaces
 * do not, so a header sent twice (which arrives joined by ", ") is refused rather than read as
 * one odd key.
 */
export const idempotencyKey = z
  .string({ error: () => `${IDEMPOTENCY_KEY_HEADER} must be given once.` })
  .regex(
    new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`),
    `${IDEMPOTENCY_KEY_HEADER} must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces).`,
  )
  .describe(
    `Makes the write safe to retry: the same key with the same request within ${IDEMPOTENCY_KEY_TTL_HOURS} hours answers the first ` +
      `answer again (with ${IDEMPOTENCY_REPLAYED_HEADER}: true) and writes nothing; with another request it is a 409 ${IDEMPOTENCY_KEY_REUSED}.`,
  );

/** The header as the routes that honour it declare it (GET /openapi.json). */
export const idempotencyHeaders = z.object({ [IDEMPOTENCY_KEY_HEADER]: idempotencyKey.optional() });
