import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { errorFields, type Logger } from '../logger.ts';
import { parseKey } from './keys.ts';

/** Notes that a key (as presented, and accepted) was just used; never delays or fails the request. */
export interface KeyUsageRecorder {
  record(presentedKey: string): void;
}

/**
 * Records when each API key was last used, for `key list`, cheaply: each process writes a key's
 * time at most once per `everyMs` (a minute), after the request's own work and without waiting
 * for it, and the statement itself writes nothing when another process recorded the key less
 * than a minute ago. So "last used" is exact to the minute, and a busy key costs one small write
 * a minute, not one per request.
 */
export class KeyUsage implements KeyUsageRecorder {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly everyMs: number;
  private readonly maxEntries: number;
  private readonly recordedAt = new Map<string, number>();
  private readonly writing = new Set<Promise<void>>();

  constructor(orm: MikroORM, logger: Logger, opts: { everyMs?: number; maxEntries?: number } = {}) {
    this.orm = orm;
    this.logger = logger;
    this.everyMs = opts.everyMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  record(presentedKey: string): void {
    const lookup = parseKey(presentedKey)?.lookup;
    if (!lookup) return;
    const now = Date.now();
    const last = this.recordedAt.get(lookup);
    if (last !== undefined && now - last < this.everyMs) return;
    this.recordedAt.delete(lookup);
    if (this.recordedAt.size >= this.maxEntries) this.recordedAt.delete(this.recordedAt.keys().next().value!);
    this.recordedAt.set(lookup, now);
    const write = sql(
      this.orm.em.fork(),
      `insert into "api_key_usage" ("key_id", "last_used_at")
       select "id", now() from "api_keys" where "lookup" = $1
       on conflict ("key_id") do update set "last_used_at" = excluded."last_used_at"
       where "api_key_usage"."last_used_at" < excluded."last_used_at" - interval '1 minute'`,
      [lookup],
    ).then(
      () => {},
      (err) => {
        // Tried again on the key's next use.
        this.recordedAt.delete(lookup);
        this.logger.warn('last use of an API key not recorded', errorFields(err));
      },
    );
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  /** Resolves once every write begun so far has ended (tests; a closing app). */
  async settled(): Promise<void> {
    await Promise.all([...this.writing]);
  }
}
