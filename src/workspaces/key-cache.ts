import type { EntityManager } from '@mikro-orm/postgresql';
import { PgListener } from '../common/pg-listener.ts';
import { ApiKey } from './entity.ts';
import { parseKey, secretMatches } from './keys.ts';

/** Resolves a presented API key to its workspace, or null for a malformed, unknown or revoked key. */
export interface KeyAuthenticator {
  authenticate(em: EntityManager, presented: string): Promise<string | null>;
}

type CachedKey = { workspaceId: string; secretHash: string; revoked: boolean };

/** Looks every key up in the database: one query per request. */
export const lookupKeys: KeyAuthenticator = {
  async authenticate(em, presented) {
    const parsed = parseKey(presented);
    if (!parsed) return null;
    const key = await load(em, parsed.lookup);
    return key && !key.revoked && secretMatches(parsed.secret, key.secretHash) ? key.workspaceId : null;
  },
};

async function load(em: EntityManager, lookup: string): Promise<CachedKey | null> {
  const apiKey = await em.findOne(ApiKey, { lookup }, { fields: ['workspace', 'secretHash', 'revokedAt'] });
  return apiKey ? { workspaceId: apiKey.workspace, secretHash: apiKey.secretHash, revoked: apiKey.revokedAt !== null } : null;
}

/**
 * Keeps the keys it has seen in memory (only their hashes, as stored), so that a request does
 * not cost a query. Any change to a key row (a revocation, from whichever process) notifies
 * `deskflow_api_keys` in the same commit, and every API process drops that key as soon as the
 * notification reaches it (milliseconds: long before an operator's next request). While
 * the notification connection is down nothing is served from memory (each key is looked up),
 * and whatever was cached is dropped when it is back: a missed notification can never let a
 * revoked key through.
 */
export class CachedKeys implements KeyAuthenticator {
  private readonly keys = new Map<string, CachedKey>();
  private readonly listener: PgListener;
  private readonly maxEntries: number;
  private notified = false;
  /** Bumped by every notification and every change of listening: a read that spans one is not cached. */
  private changes = 0;
  private markListening: () => void = () => {};
  /** Resolves once notifications arrive (until then every key is looked up). */
  readonly listening: Promise<void> = new Promise((resolve) => (this.markListening = resolve));

  constructor(databaseUrl: string, opts: { maxEntries?: number } = {}) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.listener = new PgListener(databaseUrl, 'deskflow_api_keys', {
      onNotify: (lookup) => {
        this.changes += 1;
        this.keys.delete(lookup);
      },
      onListening: () => {
        this.changes += 1;
        this.keys.clear();
        this.notified = true;
        this.markListening();
      },
      onLost: () => {
        this.changes += 1;
        this.notified = false;
        this.keys.clear();
      },
    });
    this.listener.start();
  }

  async authenticate(em: EntityManager, presented: string): Promise<string | null> {
    const parsed = parseKey(presented);
    if (!parsed) return null;
    let key = this.keys.get(parsed.lookup) ?? null;
    if (!key) {
      const before = this.changes;
      key = await load(em, parsed.lookup);
      // Cache only a read during which notifications were arriving and none came: it is current.
      if (key && this.notified && this.changes === before) this.remember(parsed.lookup, key);
    }
    return key && !key.revoked && secretMatches(parsed.secret, key.secretHash) ? key.workspaceId : null;
  }

  /** Resolves once every key change committed before the call has been applied to memory. */
  async caughtUp(): Promise<void> {
    await this.listener.caughtUp();
  }

  async close(): Promise<void> {
    await this.listener.stop();
  }

  private remember(lookup: string, key: CachedKey): void {
    if (this.keys.size >= this.maxEntries) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(lookup, key);
  }
}
