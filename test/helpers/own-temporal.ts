import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { startDevServer, type DevServer } from '../../temporal/dev-server.ts';
import { freePort } from './ports.ts';
import { onTemporalCluster, startTemporalCluster, type TemporalCluster } from './temporal-cluster.ts';

export type OwnTemporal = Omit<TemporalCluster, 'port'>;

/**
 * A Temporal server of one test file's own, to stop and start again with its state kept: a dev
 * server keeping its state in a SQLite file, or under `npm run test:cluster` a real Temporal
 * server on the run's PostgreSQL.
 */
export async function startOwnTemporal(): Promise<OwnTemporal> {
  if (onTemporalCluster()) return startTemporalCluster(inject('databaseUrl'));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-temporal-'));
  const dbFile = path.join(dir, 'temporal.sqlite');
  const port = await freePort();
  let server: DevServer | null = null;
  const start = async () => {
    server = await startDevServer({ port, uiPort: null, dbFile, cliPath: process.env.TEMPORAL_CLI_PATH });
  };
  const stop = async () => {
    await server?.stop();
    server = null;
  };
  await start();
  return {
    address: `127.0.0.1:${port}`,
    start,
    stop,
    destroy: async () => {
      await stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
