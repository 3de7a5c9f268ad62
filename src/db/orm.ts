import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { entities } from './entities.ts';
import { migrationsList } from './migrations.ts';
import { CommitSignals } from '../common/commit-signals.ts';

export const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export type OrmOptions = { databaseUrl: string; poolMax?: number; debug?: boolean };

export function ormConfig({ databaseUrl, poolMax = 10, debug = false }: OrmOptions): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    subscribers: [new CommitSignals()],
    debug,
    // Entities are defined in code; no reflection or metadata cache is needed.
    metadataCache: { enabled: false },
    pool: { min: 0, max: poolMax },
    driverOptions: {
      // Never hang a request on an unreachable database: fail fast and answer 503.
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      // A server that stops answering mid-query (frozen, partitioned) is given up on too.
      query_timeout: 35_000,
      // Relays are woken after commits by CommitSignals, not by the outbox's trigger inside them.
      options: `-c ${OUTBOX_NOTIFY_SETTING}=after-commit`,
    },
    migrations: {
      path: migrationsDir,
      pathTs: migrationsDir,
      migrationsList,
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
    },
    allowGlobalContext: false,
    // A new entity's nullable properties read null (as they will once saved), not undefined.
    initNullableProperties: true,
  };
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** Set on Deskflow's connections: the outbox's trigger leaves waking the relays to CommitSignals (Migration20261127090000_outbox_notify_after_commit). */
const OUTBOX_NOTIFY_SETTING = 'deskflow.outbox_notify';

/**
 * Applies every pending migration; returns the names of those applied. Processes starting at
 * the same time (API and workers) take turns through an advisory lock.
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const lock = new pg.Client({ connectionString: orm.config.get('clientUrl') });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await orm.migrator.up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}

const MIGRATION_LOCK = 7_314_159;
