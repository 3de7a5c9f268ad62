import { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { resolveDatabase } from '../db/database.ts';
import { inspectEmbeddedPostgres } from '../db/embedded-postgres.ts';
import { migrate, ormConfig } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { CommandError } from './errors.ts';
import { messageOf, type Resources } from './process.ts';

export type OpenDatabase = { orm: MikroORM; embedded: boolean; applied: string[] };

/**
 * DATABASE_URL, or the embedded cluster of the data directory (reused on whatever port it runs
 * when the server, or anything else, runs it; else started here and stopped on release), with
 * every pending migration applied. Which embedded database it is, and whether it is about to
 * be started or created, is said on stderr first. Never creates the default workspace: that
 * is the server's first start only.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  logger: Logger,
  resources: Resources,
): Promise<OpenDatabase> {
  if (!config.databaseUrl) process.stderr.write(describeEmbeddedDatabase(config) + '\n');
  // That line said which database it is: the same news from the embedded PostgreSQL's start
  // ("using the embedded PostgreSQL that process … runs") is for the debug log only, not a second notice.
  const quiet: Logger = { ...logger, info: (msg, fields) => logger.debug(msg, fields) };
  const database = await resources.acquire(
    () => resolveDatabase(config, quiet, 'use'),
    (db) => db.stop(),
  );
  const orm = await resources.acquire(
    () =>
      MikroORM.init({
        ...ormConfig({ databaseUrl: database.url, poolMax: 2 }),
        // stdout belongs to the command's output (`--json`): whatever MikroORM logs goes to stderr.
        logger: (line: string) => process.stderr.write(line + '\n'),
      }),
    (orm) => orm.close(),
  );
  await orm.em.getConnection().execute('select 1').catch((err) => {
    throw new CommandError(`could not connect to the database: ${messageOf(err)}`);
  });
  const applied = await migrate(orm).catch((err) => {
    throw new Error(`could not apply migrations: ${messageOf(err)}`);
  });
  return { orm, embedded: database.embedded, applied };
}

/** One line on which embedded database a command is about to use, for a reader who expected another. */
export function describeEmbeddedDatabase(config: Pick<Config, 'dataDir' | 'embeddedPgPort'>): string {
  const found = inspectEmbeddedPostgres(config.dataDir);
  const elsewhere = 'If your server uses DATABASE_URL or another DESKFLOW_DATA_DIR, set the same here.';
  switch (found.kind) {
    case 'running':
      return found.state === 'in use'
        ? `Using the embedded PostgreSQL of ${config.dataDir}, run by process ${found.child.process.parent} on port ${found.port}.`
        : `Using the embedded PostgreSQL of ${config.dataDir} on port ${found.port}, left running by an earlier Deskflow.`;
    case 'stopped':
      return `The embedded PostgreSQL of ${config.dataDir} is not running: starting it on port ${config.embeddedPgPort} for this command, stopping it after. ${elsewhere}`;
    case 'none':
      return `No database in ${config.dataDir} yet: creating a new embedded PostgreSQL there (port ${config.embeddedPgPort}). ${elsewhere}`;
  }
}
