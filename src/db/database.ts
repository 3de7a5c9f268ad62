import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

export type Database = { url: string; embedded: boolean; stop: () => Promise<void> };

/** `DATABASE_URL` when set; otherwise the embedded PostgreSQL under the data directory. */
export async function resolveDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>, logger: Logger): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const pg = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    log: (line) => logger.debug('postgres', { line }),
  });
  return { url: pg.url, embedded: true, stop: pg.stop };
}
