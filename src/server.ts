import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { resolveDatabase } from './db/database.ts';
import { migrate, openOrm } from './db/orm.ts';
import { OutboxRelay } from './events/relay.ts';
import { createLogger, type Logger } from './logger.ts';
import { Workspace } from './workspaces/entity.ts';
import { WorkspaceService } from './workspaces/service.ts';
import { connectTemporal, TemporalEngine, type TemporalSettings } from '../temporal/client.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import { startWorker } from '../temporal/worker.ts';
import { reconcileSchedules, TemporalSchedules } from '../temporal/schedules.ts';

/**
 * Process entry (CONTRACT §7).
 *   all (npm start):            API + worker + relay, with embedded Postgres and a local Temporal
 *                               dev server for whatever is not configured.
 *   api (npm run start:api):    the HTTP API only.
 *   worker (npm run start:worker): the Temporal worker and the outbox relay.
 * Migrations apply at start; SIGINT/SIGTERM shut down in reverse order of start.
 */
type Mode = 'all' | 'api' | 'worker';

async function main(): Promise<void> {
  const mode = parseMode(process.argv[2]);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  const shutdown = async (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { reason });
    for (const stop of stops.reverse()) {
      await stop().catch((err) => logger.error('shutdown step failed', { error: String(err) }));
    }
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
  // Never leave the embedded database or dev server behind on a crash.
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (err) => {
      logger.error(event, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      void shutdown(event, 1);
    });
  }

  try {
    const database = await resolveDatabase(config, logger);
    stops.push(database.stop);
    const orm = await openOrm({ databaseUrl: database.url, poolMax: config.dbPoolMax });
    stops.push(() => orm.close());
    const applied = await migrate(orm);
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    if (database.embedded && mode !== 'worker') await createDefaultWorkspace(orm, config);

    const temporal = await resolveTemporal(config, mode, logger);
    stops.push(temporal.stop);
    const connection = await connectTemporal(temporal.settings);
    stops.push(() => connection.close());
    const engine = new TemporalEngine(connection, { namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue });
    const schedules = new TemporalSchedules(engine.client, config.temporal.taskQueue);

    if (mode !== 'api') {
      const worker = await startWorker({ orm, logger, engine, temporal: temporal.settings, taskQueue: config.temporal.taskQueue, httpAllow: config.httpAllow }).catch(
        (err) => {
          // `npm start` keeps serving tickets without the engine; a dedicated worker process must not.
          if (mode === 'worker') throw err;
          console.error(`Workflow worker not started (${(err as Error).message}); automations stay pending until Temporal is reachable and Deskflow restarts.`);
          return null;
        },
      );
      if (worker) {
        stops.push(worker.stop);
        await reconcileSchedules(orm, schedules, logger);
        console.log(`Deskflow worker running on task queue "${config.temporal.taskQueue}" (Temporal ${temporal.settings.address})`);
      }
      const relay = new OutboxRelay({ orm, engine, logger, databaseUrl: database.url });
      relay.start();
      stops.push(() => relay.stop());
    }
    if (mode !== 'worker') {
      const app = createApp({ orm, config, logger, engine, schedules, readiness: [{ name: 'temporal', check: () => engine.ping() }] });
      const server = await listen(app, config);
      stops.push(() => closeServer(server));
      console.log(`Deskflow API listening on http://localhost:${config.port}`);
    }
    if (temporal.uiUrl) console.log(`Temporal Web UI: ${temporal.uiUrl}`);
    if (database.embedded) console.log(`Embedded data in ${config.dataDir}`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`Deskflow could not start: ${message}`);
    await shutdown('start failure', 1);
  }
}

function parseMode(arg: string | undefined): Mode {
  if (arg === undefined) return 'all';
  if (arg === 'all' || arg === 'api' || arg === 'worker') return arg;
  console.error(`Unknown mode "${arg}"; use all, api or worker.`);
  process.exit(2);
}

/** TEMPORAL_ADDRESS when set; otherwise `npm start` runs a local dev server with its state under the data directory. */
async function resolveTemporal(config: Config, mode: Mode, logger: Logger) {
  const t = config.temporal;
  const settings = (address: string): TemporalSettings => ({ ...t, address });
  if (t.address) return { settings: settings(t.address), uiUrl: null, stop: async () => {} };
  if (mode !== 'all') return { settings: settings('127.0.0.1:7233'), uiUrl: null, stop: async () => {} };
  const dev = await startDevServer({
    port: t.devPort,
    uiPort: t.uiPort,
    dbFile: `${config.dataDir}/temporal.sqlite`,
    cliPath: t.cliPath,
    namespace: t.namespace,
    log: (line) => logger.debug('temporal', { line }),
  }).catch((err) => {
    console.error(`Local Temporal dev server not started: ${(err as Error).message.split('\n')[0]}`);
    console.error('Install the Temporal CLI (see README) or set TEMPORAL_ADDRESS; tickets are served meanwhile.');
    return null;
  });
  if (!dev) return { settings: settings(`127.0.0.1:${t.devPort}`), uiUrl: null, stop: async () => {} };
  return { settings: settings(dev.address), uiUrl: dev.uiUrl, stop: dev.stop };
}

/** The zero-config first run: a `default` workspace and one key for it, printed once. */
async function createDefaultWorkspace(orm: MikroORM, config: Config): Promise<void> {
  const em = orm.em.fork();
  if ((await em.count(Workspace, {})) > 0) return;
  const workspaces = new WorkspaceService(em);
  const workspace = await workspaces.createWorkspace('default');
  const { key } = await workspaces.createKey(workspace.id, 'default');
  console.log(
    [
      '',
      `Created workspace "default" (${workspace.id}).`,
      'Its API key (shown once, store it now):',
      `  ${key}`,
      `Try: curl -H "Authorization: Bearer ${key}" http://localhost:${config.port}/api/v1/tickets`,
      '',
    ].join('\n'),
  );
}

function listen(app: ReturnType<typeof createApp>, config: Pick<Config, 'port' | 'host'>): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(config.port, config.host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${config.port} is in use; set PORT`) : err),
    );
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

await main();
