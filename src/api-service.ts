import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from './app.ts';
import { secretsFor } from './mail/secrets.ts';
import type { Config } from './config.ts';
import { EventFeed } from './feed/hub.ts';
import { OutboxFeedSource } from './feed/store.ts';
import type { Shutdown } from './lifecycle/shutdown.ts';
import type { Logger } from './logger.ts';
import type { ScheduleSync } from './workflows/schedule-spec.ts';
import { PgNotifications } from './triggers/wakeups.ts';
import { CachedKeys } from './workspaces/key-cache.ts';
import { WorkspaceService } from './workspaces/service.ts';
import type { TemporalEngine } from '../temporal/client.ts';
import type { NamespaceReadiness } from '../temporal/namespace-readiness.ts';

/**
 * The API side of a process (`npm start`, `start:api`): the HTTP server with its key cache.
 * Loaded only by processes that serve the API, so a worker process starts without Koa, the
 * routes and the OpenAPI document.
 */
export async function startApiSide(deps: {
  orm: MikroORM;
  config: Config;
  logger: Logger;
  engine: TemporalEngine;
  schedules: ScheduleSync;
  /** Whether the namespace has what runs need: /readyz names what it lacks. */
  namespace: NamespaceReadiness;
  databaseUrl: string;
  shutdown: Shutdown;
  /** On the embedded PostgreSQL a first start creates a workspace and prints its key (once it listens). */
  embedded: boolean;
  /** `host:port` of the Temporal SDK's metrics exporter of this process's worker, added to GET /metrics. */
  temporalMetricsAddress?: string;
  /** The Temporal Web UI the console links runs to: TEMPORAL_UI_URL, else the one of the dev server `npm start` runs. */
  temporalUiUrl?: string;
}): Promise<void> {
  const { orm, config, shutdown, engine } = deps;
  const keys = await shutdown.start('api keys', async () => new CachedKeys(deps.databaseUrl), (cache) => cache.close());
  // Reads the outbox (and listens on its channel) only while a client is connected.
  const feed = new EventFeed({
    source: new OutboxFeedSource(orm),
    wakeups: new PgNotifications(deps.databaseUrl),
    logger: deps.logger,
    streamsPerWorkspace: config.eventStreamsPerWorkspace,
  });
  const app = createApp({
    orm,
    config,
    logger: deps.logger,
    engine,
    schedules: deps.schedules,
    mailDelivery: engine,
    secrets: secretsFor(config),
    httpAllow: config.httpAllow,
    keys,
    feed,
    readiness: [
      {
        name: 'temporal',
        check: async () => {
          await engine.ping();
          await deps.namespace.check();
        },
      },
    ],
    stopping: () => shutdown.stopping,
    console: { temporalUiUrl: deps.temporalUiUrl, temporalNamespace: config.temporal.namespace },
    temporalMetricsUrl: deps.temporalMetricsAddress && `http://${deps.temporalMetricsAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:')}/metrics`,
  });
  // Listening first: a taken port fails the start before a first workspace and its once-only key exist.
  await shutdown.start('http', () => listen(app, config), closeServer);
  // Stopped before the server closes: open streams end (their clients reconnect elsewhere with
  // Last-Event-ID), so they do not hold the close up.
  shutdown.add('event streams', () => feed.close());
  if (deps.embedded) await greetFirstRun(orm, config);
  console.log(`Deskflow API listening on http://localhost:${config.port}`);
}

/**
 * The zero-config first run: a `default` workspace and one key for it, printed once. Later
 * starts, as long as no key has ever been used, say how to make another: the printed one may
 * have been lost.
 */
async function greetFirstRun(orm: MikroORM, config: Config): Promise<void> {
  const workspaces = new WorkspaceService(orm.em.fork());
  const oldest = (await workspaces.listWorkspaces())[0];
  if (oldest) {
    if (await workspaces.anyKeyUsed()) return;
    console.log(
      [
        '',
        'No API key has been used on this database yet. If you did not keep the key printed at the first start, make one:',
        `  npm run admin -- key create --workspace ${oldest.id}   (workspace "${oldest.name}")`,
        '',
      ].join('\n'),
    );
    return;
  }
  const workspace = await workspaces.createWorkspace('default');
  const { id, key } = await workspaces.createKey(workspace.id, 'default');
  console.log(
    [
      '',
      `Created workspace "default" (${workspace.id}).`,
      'Its API key (shown once, store it now):',
      `  ${key}  (key id ${id})`,
      `To revoke it: npm run admin -- key revoke ${id}`,
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

