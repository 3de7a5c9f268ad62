import { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { resolveDatabase } from '../db/database.ts';
import { migrate, ormConfig } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { CommandError } from './errors.ts';
import { messageOf, type Resources } from './process.ts';

export type OpenDatabase = { orm: MikroORM; embedded: boolean; applied: string[] };

/**
 * DATABASE_URL, or the embedded cluster of the data directory (reused when the server runs it,
 * else started here and stopped on release), with every pending migration applied. Never
 * creates the default workspace: that is the server's first start only.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  logger: Logger,
  resources: Resources,
): Promise<OpenDatabase> {
  const database = await resources.acquire(
    () => resolveDatabase(config, logger),
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
