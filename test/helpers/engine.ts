import { inject } from 'vitest';
import { Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp, type AppDeps } from '../../src/app.ts';
import { openOrm } from '../../src/db/orm.ts';
import { OutboxEvent } from '../../src/events/entity.ts';
import { createOutboxRelay, type OutboxRelay } from '../../src/triggers/relay.ts';
import { Execution } from '../../src/executions/entity.ts';
import { createLogger } from '../../src/logger.ts';
import { EventFeed } from '../../src/feed/hub.ts';
import { OutboxFeedSource } from '../../src/feed/store.ts';
import { PgNotifications } from '../../src/triggers/wakeups.ts';
import { connectTemporal, TemporalEngine, type TemporalSettings } from '../../temporal/client.ts';
import { startWorker, type RunningWorker } from '../../temporal/worker.ts';
import { TemporalSchedules } from '../../temporal/schedules.ts';
import { newWorkspace, type Client, type TestWorkspace } from './app.ts';
import { activeWorkflow, openTicket } from './api.ts';
import { useFixture } from './fixture.ts';
import { eventually } from './poll.ts';
import { testSecrets } from './mailbox.ts';

// Workers log failed activities and workflows at WARN; tests provoke many on purpose.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  /* installed already in this test process */
}

export type EngineApp = {
  baseUrl: string;
  orm: MikroORM;
  engine: TemporalEngine;
  relay: OutboxRelay;
  taskQueue: string;
  temporal: TemporalSettings;
  /** Starts a worker (one is started by default). */
  startWorker: () => Promise<RunningWorker>;
  worker: RunningWorker | null;
  /**
   * The workspaces whose events this app's relay delivers (engineWorkspace adds to it). Every
   * test file runs a relay with an engine of its own (its own task queue, sometimes its own
   * Temporal server) on the one test database, so each relay serves only its file's workspaces.
   */
  workspaceIds: Set<string>;
  close: () => Promise<void>;
};

export type EngineAppOptions = {
  worker?: boolean;
  httpAllow?: string[];
  /** A Temporal server of the test's own (default: the run's shared dev server). */
  temporalAddress?: string;
  /** A database of the test's own, migrated (default: the run's shared test database). */
  databaseUrl?: string;
  /** Settings of the console page (where the Temporal Web UI is). */
  console?: AppDeps['console'];
  /** Serve the event feed (GET /api/v1/events) as the server does: the console follows it. */
  feed?: boolean;
};

/** API + worker + relay on the run's database and Temporal dev server, on a task queue of this file's own. */
export async function startEngineApp(opts: EngineAppOptions = {}): Promise<EngineApp> {
  const logger = createLogger('silent');
  const databaseUrl = opts.databaseUrl ?? inject('databaseUrl');
  const orm = await openOrm({ databaseUrl, poolMax: 20 });
  const temporal: TemporalSettings = { address: opts.temporalAddress ?? inject('temporalAddress'), namespace: 'default', apiKey: undefined, tls: false, tlsCertPath: undefined, tlsKeyPath: undefined, tlsCaPath: undefined };
  const taskQueue = `test-${Math.random().toString(36).slice(2, 10)}`;
  const connection = await connectTemporal(temporal);
  const engine = new TemporalEngine(connection, { namespace: 'default', taskQueue });
  const workspaceIds = new Set<string>();
  const relay = createOutboxRelay({ orm, engine, aiOwner: engine, logger, databaseUrl, pollMs: 200, workspaceIds, outboxRetentionDays: 30 });
  relay.start();
  const schedules = new TemporalSchedules(engine.client, taskQueue);
  const feed = opts.feed ? new EventFeed({ source: new OutboxFeedSource(orm), wakeups: new PgNotifications(databaseUrl), logger }) : undefined;
  const app = createApp({ orm, config: { rateLimit: { perSecond: 0, burst: 0 } }, logger, engine, schedules, mailDelivery: engine, secrets: () => testSecrets, httpAllow: opts.httpAllow, readiness: [{ name: 'temporal', check: () => engine.ping() }], console: opts.console, feed });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const launch = () =>
    startWorker({ orm, logger, engine, mailDelivery: engine, temporal, taskQueue, httpAllow: opts.httpAllow ?? [], secrets: () => testSecrets, workflowBundle: { codePath: inject('workflowBundlePath') } });
  const engineApp: EngineApp = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    orm,
    engine,
    relay,
    taskQueue,
    temporal,
    worker: null,
    workspaceIds,
    startWorker: async () => (engineApp.worker = await launch()),
    close: async () => {
      // The feed first: it ends its streams, which would otherwise hold the server open.
      await feed?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await relay.stop();
      await engineApp.worker?.stop();
      await connection.close();
      await orm.close();
    },
  };
  if (opts.worker !== false) await engineApp.startWorker();
  return engineApp;
}

/**
 * The engine fixture of a test file: an EngineApp started before the file's tests and closed
 * after them. Options that depend on something started first (a Temporal server of the file's
 * own) are given as a function, called when the app starts.
 */
export function useEngineApp(opts: EngineAppOptions | (() => EngineAppOptions) = {}): EngineApp {
  return useFixture(() => startEngineApp(typeof opts === 'function' ? opts() : opts), (app) => app.close());
}

/** A connection to the run's Temporal server, open for the tests of a file (see useFixture). */
export function useTemporalConnection(): Connection {
  return useFixture(() => Connection.connect({ address: inject('temporalAddress') }), (connection) => connection.close());
}

export async function engineWorkspace(app: EngineApp, members: Array<{ userId: string; role?: 'member' | 'admin' }> = []): Promise<{ ws: TestWorkspace; api: Client }> {
  const { ws, api } = await newWorkspace(app, members);
  app.workspaceIds.add(ws.workspaceId);
  return { ws, api };
}

/** A fresh workspace of `app` with one active workflow (see activeWorkflow). */
export async function workspaceWithWorkflow(app: EngineApp, triggerType: string, edges: unknown[] | string, nodes: unknown[], name?: string) {
  const { ws, api } = await engineWorkspace(app);
  const workflowId = await activeWorkflow(api, triggerType, edges, nodes, name);
  return { ws, api, workflowId };
}

/** A fresh workspace of `app` with an active ticket_created workflow and a ticket opened in it, which starts the workflow's run. */
export async function runOnNewTicket(app: EngineApp, edges: unknown[] | string, nodes: unknown[], ticket: Record<string, unknown> = {}) {
  const { ws, api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', edges, nodes);
  return { ws, api, workflowId, ticketId: await openTicket(api, ticket) };
}

/**
 * Waits until the relay has delivered every event of the workspace and no execution of it is
 * unfinished: nothing more will start unless something new happens. Returns the events. Both
 * are read in one snapshot: a run that ends in the same commit as the event it writes, between
 * two separate reads, would look settled with its event unseen.
 */
export async function settled(app: EngineApp, workspaceId: string, timeoutMs = 20_000): Promise<OutboxEvent[]> {
  return eventually(
    () =>
      app.orm.em.fork().transactional(
        async (em) => {
          const events = await em.find(OutboxEvent, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
          const open = await em.count(Execution, { workspace: workspaceId, status: { $in: ['pending', 'running'] } });
          return events.every((e) => e.deliveredAt !== null) && open === 0 ? events : undefined;
        },
        { isolationLevel: 'repeatable read', readOnly: true },
      ),
    timeoutMs,
    `every event of workspace ${workspaceId} delivered and every execution finished`,
  );
}
