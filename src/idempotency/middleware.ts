import type { Next, ParameterizedContext } from 'koa';
import type { AppState } from '../http/state.ts';
import { validate } from '../http/validate.ts';
import { bodyHash } from './body-hash.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER, idempotencyKey } from './schema.ts';
import type { StoredAnswer } from './service.ts';

/** Thrown to roll the transaction back when the route answered without success but without an error. */
class NotKept extends Error {}

/**
 * Makes a write route idempotent under `Idempotency-Key` (docs/contract.md §1, Idempotent
 * writes). Mount it after the body is read (jsonBody) and before the route's own checks.
 *
 * Without the header the route runs as always. With it, the key is claimed and the route runs
 * in one transaction, which then stores the route's answer under the key and commits it with
 * the write: either both exist or neither does, whatever fails or is killed in between. The
 * same key again (the same endpoint and body) answers the stored answer, word for word, with
 * `Idempotency-Replayed: true`, and the route does not run.
 */
export async function idempotent(ctx: ParameterizedContext<AppState>, next: Next): Promise<void> {
  const header = ctx.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (header === undefined) return next();
  const key = validate(idempotencyKey, header, IDEMPOTENCY_KEY_HEADER);
  const { workspaceId } = ctx.state;
  const request = { method: ctx.method, path: ctx.path, bodyHash: bodyHash(ctx.request.body) };
  const services = ctx.state.services;
  let replay: StoredAnswer | null;
  try {
    replay = await services.inTransaction(async (tx) => {
      const earlier = await tx.idempotency.claim(workspaceId, key, request);
      if (earlier) return earlier;
      ctx.state.services = tx;
      await next();
      if (ctx.status < 200 || ctx.status > 299) throw new NotKept();
      const answer = { status: ctx.status, body: JSON.stringify(ctx.body) };
      await tx.idempotency.complete(workspaceId, key, answer);
      // The text stored is the text sent, so that a replay is identical to it.
      send(ctx, answer);
      return null;
    });
  } catch (err) {
    if (err instanceof NotKept) return;
    throw err;
  } finally {
    ctx.state.services = services;
  }
  if (replay) {
    send(ctx, replay);
    ctx.set(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  }
}

function send(ctx: ParameterizedContext<AppState>, answer: StoredAnswer): void {
  ctx.status = answer.status;
  ctx.type = 'application/json';
  ctx.body = answer.body;
}
