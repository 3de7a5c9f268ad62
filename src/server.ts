import { loadConfig, type Config } from './config.ts';
import { resolveDatabase } from './db/database.ts';
import { migrate, openOrm } from './db/orm.ts';
import { claimDataDir } from './lifecycle/data-dir-lock.ts';
import { Shutdown, ShuttingDown } from './lifecycle/shutdown.ts';
import { createLogger, type Logger } from './logger.ts';
import { secretsFor } from './mail/secrets.ts';
import { connectTemporal, TemporalEngine, type TemporalSettings } from '../temporal/client.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import { NamespaceReadiness } from '../temporal/namespace-readiness.ts';
import { TemporalSchedules } from '../temporal/schedules.ts';

/**
 * Process entry (docs/contract.md §7).
 *   all (npm start):            API + worker + relay, with embedded Postgres and a local Temporal
 *                               dev server for whatever is not configured.
 *   api (npm run start:api):    the HTTP API only.
 *   worker (npm run start:worker): the Temporal worker and the outbox relay.
 * Migrations apply at start. A worker that cannot reach Temporal keeps trying in the background
 * (in every mode) instead of giving up. SIGINT, SIGTERM and SIGHUP shut down in reverse order
 * of start (see Shutdown); /readyz answers 503 from the first moment of it, and the API keeps
 * serving for SHUTDOWN_DRAIN_SECONDS before it stops. A second `npm start` on the same data
 * directory is refused before it touches anything.
 */
type Mode = 'all' | 'api' | 'worker';

async function main(): Promise<void> {
  const mode = parseMode(process.argv[2]);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  await prepareProcess(mode, config, logger);
  const shutdown = listenForShutdown(config, logger);
  try {
    await startParts(mode, config, logger, shutdown);
  } catch (err) {
    // A signal during start: the shutdown under way stops what started, and says so.
    if (err instanceof ShuttingDown || shutdown.stopping) return;
    const message = err instanceof Error ? err.message : String(err);
    console.error(`Deskflow could not start: ${message}`);
    await shutdown.run('start failure', 1);
  }
}

/**
 * What must hold before anything starts, else the process exits with a message: npm start runs
 * the embedded PostgreSQL and the dev server of its data directory, one per directory (start:api
 * and start:worker share one); and the Temporal SDK's runtime is set once per process, before the
 * dev server or the worker touch the SDK.
 */
async function prepareProcess(mode: Mode, config: Config, logger: Logger): Promise<void> {
  if (mode === 'all' && (!config.databaseUrl || !config.temporal.address)) {
    try {
      claimDataDir(config.dataDir);
    } catch (err) {
      console.error(`Deskflow could not start: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
  }
  if (mode === 'api') return;
  const { installTemporalRuntime } = await import('../temporal/runtime.ts');
  try {
    installTemporalRuntime({ logger, metricsAddress: config.temporal.metricsAddress });
  } catch (err) {
    // A taken TEMPORAL_METRICS_PORT, before anything has started.
    console.error(`Deskflow could not start: ${err instanceof Error ? err.message : String(err)} (TEMPORAL_METRICS_PORT ${config.temporal.metricsAddress})`);
    process.exit(1);
  }
  if (config.temporal.metricsAddress) logger.info('temporal worker metrics served', { address: `http://${config.temporal.metricsAddress}/metrics` });
}

/** The process's shutdown, on a signal or a crash: an API process drains first (/readyz 503 while requests are still served). */
function listenForShutdown(config: Config, logger: Logger): Shutdown {
  const shutdown = new Shutdown(logger, { drainMs: config.shutdownDrainSeconds * 1000 });
  shutdown.listen();
  // Never leave the embedded database or dev server behind on a crash.
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (err) => {
      logger.error(event, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      void shutdown.run(event, 1);
    });
  }
  return shutdown;
}

/** Starts the mode's parts in order, each registered with `shutdown` to stop in reverse: the database, Temporal, then the worker side and the API side. */
async function startParts(mode: Mode, config: Config, logger: Logger, shutdown: Shutdown): Promise<void> {
  const database = await shutdown.start('database', () => resolveDatabase(config, logger), (db) => db.stop());
  const orm = await shutdown.start('orm', () => openOrm({ databaseUrl: database.url, poolMax: config.dbPoolMax }), (orm) => orm.close());
  const applied = await migrate(orm);
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
  const { temporal, engine, schedules, namespace, namespaceLooked } = await startTemporalClient(mode, config, logger, shutdown);

  if (mode !== 'api') {
    const { startWorkerSide } = await import('../temporal/worker-service.ts');
    await startWorkerSide({
      orm,
      logger,
      engine,
      schedules,
      namespace,
      namespaceLooked,
      temporal: temporal.settings,
      taskQueue: config.temporal.taskQueue,
      httpAllow: config.httpAllow,
      dbPoolMax: config.dbPoolMax,
      outboxRetentionDays: config.outboxRetentionDays,
      executionRetentionDays: config.executionRetentionDays,
      databaseUrl: database.url,
      secrets: secretsFor(config),
      mailPollMs: config.mail.pollMs,
      shutdown,
      servesApi: mode === 'all',
    });
  }
  if (mode !== 'worker') {
    const { startApiSide } = await import('./api-service.ts');
    await startApiSide({
      orm,
      config,
      logger,
      engine,
      schedules,
      namespace,
      databaseUrl: database.url,
      shutdown,
      embedded: database.embedded,
      // The worker shares this process: GET /metrics adds its metrics.
      temporalMetricsAddress: mode === 'all' ? config.temporal.metricsAddress : undefined,
      temporalUiUrl: config.temporal.uiUrl ?? temporal.uiUrl ?? undefined,
    });
  }
  if (temporal.uiUrl) console.log(`Temporal Web UI: ${temporal.uiUrl}`);
  if (database.embedded) console.log(`Embedded data in ${config.dataDir}`);
}

/**
 * Temporal as this process reaches it: the dev server npm start runs (or the configured
 * address), a client connection, and the namespace looked at for Deskflow's search attributes,
 * added where Deskflow may (the dev server it runs, TEMPORAL_SETUP_ON_START), else reported by
 * the log and /readyz.
 */
async function startTemporalClient(mode: Mode, config: Config, logger: Logger, shutdown: Shutdown) {
  const temporal = await shutdown.start('temporal dev server', () => resolveTemporal(config, mode, logger), (t) => t.stop());
  let namespace: NamespaceReadiness | undefined;
  const connection = await shutdown.start('temporal client', () => connectTemporal(temporal.settings), async (c) => {
    namespace?.stop();
    await c.close();
  });
  const engine = new TemporalEngine(connection, { namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue });
  const schedules = new TemporalSchedules(engine.client, config.temporal.taskQueue);
  namespace = new NamespaceReadiness({
    connection,
    namespace: config.temporal.namespace,
    address: temporal.settings.address,
    mayRegister: temporal.ownDevServer || config.temporal.setupOnStart,
    logger,
  });
  return { temporal, engine, schedules, namespace, namespaceLooked: namespace.start() };
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
  if (t.address) return { settings: settings(t.address), uiUrl: null, ownDevServer: false, stop: async () => {} };
  if (mode !== 'all') return { settings: settings('127.0.0.1:7233'), uiUrl: null, ownDevServer: false, stop: async () => {} };
  const dev = await startDevServer({
    port: t.devPort,
    uiPort: t.uiPort,
    dbFile: `${config.dataDir}/temporal.sqlite`,
    recordFile: `${config.dataDir}/temporal.process.json`,
    cliPath: t.cliPath,
    namespace: t.namespace,
    log: (line) => logger.debug('temporal', { line }),
    note: (line) => logger.info(line),
  }).catch((err) => {
    console.error(`Local Temporal dev server not started: ${(err as Error).message.split('\n')[0]}`);
    console.error('Install the Temporal CLI (see docs/operations.md) or set TEMPORAL_ADDRESS; tickets are served meanwhile.');
    return null;
  });
  if (!dev) return { settings: settings(`127.0.0.1:${t.devPort}`), uiUrl: null, ownDevServer: false, stop: async () => {} };
  return { settings: settings(dev.address), uiUrl: dev.uiUrl, ownDevServer: true, stop: dev.stop };
}

await main();
