import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict } from '../errors.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_TTL_HOURS } from './schema.ts';

/** What a key is bound to: the endpoint (method and path as sent) and the body. */
export type KeyedRequest = { method: string; path: string; bodyHash: string };

/** The first answer to a key, as sent: its status and the exact JSON text of its body. */
export type StoredAnswer = { status: number; body: string };

const EXPIRED = `"created_at" <= now() - make_interval(hours => ${IDEMPOTENCY_KEY_TTL_HOURS})`;

/**
 * Idempotency keys in PostgreSQL (docs/contract.md §1, Idempotent writes). Use it on an
 * EntityManager inside the transaction of the write the key guards.
 */
export class IdempotencyService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * Takes `key` for this request, or finds the answer it already has.
   *
   * The insert (or the takeover of an expired key) is the first statement of the transaction
   * and holds the key's row lock until it commits or rolls back: a concurrent request with the
   * same key waits on that insert, then finds the committed key and its answer, or, when the
   * first one rolled back, takes the key itself. Returns null when the key is now this
   * transaction's (the caller writes and then `complete`s it), else the stored answer to
   * replay. A key bound to another request is a 409 and changes nothing.
   */
  async claim(workspaceId: string, key: string, request: KeyedRequest): Promise<StoredAnswer | null> {
    // A key that vanished between the two statements (its workspace deleted) is claimed afresh.
    for (;;) {
      const taken = await this.em.execute(
        `insert into "idempotency_keys" ("workspace_id", "key", "method", "path", "body_hash", "created_at")
         values (?, ?, ?, ?, ?, now())
         on conflict ("workspace_id", "key") do update
           set "method" = excluded."method", "path" = excluded."path", "body_hash" = excluded."body_hash",
               "response_status" = null, "response_body" = null, "created_at" = excluded."created_at"
           where "idempotency_keys".${EXPIRED}
         returning 1`,
        [workspaceId, key, request.method, request.path, request.bodyHash],
      );
      if (taken.length > 0) return null;
      const [earlier] = await this.em.execute<Array<{ method: string; path: string; body_hash: string; response_status: number; response_body: string }>>(
        `select "method", "path", "body_hash", "response_status", "response_body" from "idempotency_keys" where "workspace_id" = ? and "key" = ?`,
        [workspaceId, key],
      );
      if (!earlier) continue;
      if (earlier.method !== request.method || earlier.path !== request.path) {
        throw keyReused(`was used for ${earlier.method} ${earlier.path} in the last ${IDEMPOTENCY_KEY_TTL_HOURS} hours`);
      }
      if (earlier.body_hash !== request.bodyHash) throw keyReused(`was used with a different body in the last ${IDEMPOTENCY_KEY_TTL_HOURS} hours`);
      return { status: earlier.response_status, body: earlier.response_body };
    }
  }

  /** Stores the answer to a key this transaction claimed; it commits with the write. */
  async complete(workspaceId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.em.execute(`update "idempotency_keys" set "response_status" = ?, "response_body" = ? where "workspace_id" = ? and "key" = ?`, [
      answer.status,
      answer.body,
      workspaceId,
      key,
    ]);
  }

  /**
   * Deletes up to `limit` expired keys (of the given workspaces, or all), oldest first by the
   * index on created_at; returns how many. Expired keys already count as new, so this only
   * keeps the table small.
   */
  async purgeExpired(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const scope = workspaceIds ? ` and "workspace_id" in (?)` : '';
    const result = await this.em.execute<{ affectedRows: number }>(
      `delete from "idempotency_keys" where ctid = any(array(
         select ctid from "idempotency_keys" where ${EXPIRED}${scope} order by "created_at" limit ?))`,
      workspaceIds ? [workspaceIds, limit] : [limit],
      'run',
    );
    return result.affectedRows;
  }
}

const keyReused = (what: string) =>
  conflict(IDEMPOTENCY_KEY_REUSED, `This ${IDEMPOTENCY_KEY_HEADER} ${what}; send a new key for a new request. Nothing was saved.`);
