import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { migrate, openOrm } from '../../src/db/orm.ts';
import { freePort } from './ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/**
 * Once per test run: a database of the run's own, migrated, on the server named by
 * DATABASE_URL when set, else on an embedded PostgreSQL in a temporary directory. Dropped
 * (and the embedded server stopped) afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => console.error('test teardown:', err));
  };
  try {
    let serverUrl: string;
    if (process.env.DATABASE_URL) {
      serverUrl = process.env.DATABASE_URL;
    } else {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-test-pg-'));
      cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
      const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
      cleanups.push(embedded.stop);
      serverUrl = embedded.url;
    }
    const database = `deskflow_test_${process.pid}_${Date.now().toString(36)}`;
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    await ensureDatabase(serverUrl, database);
    cleanups.push(() => dropDatabase(serverUrl, database));

    const orm = await openOrm({ databaseUrl: url.toString() });
    await migrate(orm);
    await orm.close();
    project.provide('databaseUrl', url.toString());
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}

/** Drops a database of the server at `serverUrl`, closing its connections first. */
export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${database}" with (force)`);
  } finally {
    await client.end();
  }
}
