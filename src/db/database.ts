import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

export type Database = { url: string; embedded: boolean; stop: () => Promise<void> };

/** `DATABASE_URL` when set; otherwise the embedded PostgreSQL under the data directory. */
export async function resolveDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  logger: Logger,
  /** A server restarts a cluster that a killed Deskflow left running; a one-off command uses it. */
  leftover: 'restart' | 'use' = 'restart',
): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const pg = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    log: (line) => logger.debug('postgres', { line }),
    note: (line) => logger.info(line),
    leftover,
  });
  return { url: pg.url, embedded: true, stop: pg.stop };
}
