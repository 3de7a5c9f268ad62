import type { MikroORM } from '@mikro-orm/postgresql';
import type { Shutdown } from '../src/lifecycle/shutdown.ts';
import type { Logger } from '../src/logger.ts';
import { MailWorker } from '../src/mail/mail-worker.ts';
import { PendingMailDeliveries } from '../src/mail/outbound.ts';
import type { SecretBox } from '../src/mail/secrets.ts';
import { createServices } from '../src/services.ts';
import { createOutboxRelay } from '../src/triggers/relay.ts';
import type { ScheduleSync } from '../src/workflows/schedule-spec.ts';
import { prebuiltBundle } from './bundle.ts';
import type { TemporalEngine, TemporalSettings } from './client.ts';
import type { NamespaceReadiness } from './namespace-readiness.ts';
import { reconcileSchedules } from './schedules.ts';
import { startWorker } from './worker.ts';
import { WorkerRetry } from './worker-retry.ts';

/**
 * The worker side of a process (`npm start`, `start:worker`): the Temporal worker, retried in
 * the background until Temporal answers, the outbox relay, and the mail worker (mailbox
 * watchers, deliveries to start). Loaded only by processes that run it, so an API process
 * never loads the worker's native runtime.
 */
export async function startWorkerSide(deps: {
  orm: MikroORM;
  logger: Logger;
  engine: TemporalEngine;
  schedules: ScheduleSync;
  /** Whether runs can start on the namespace (its search attributes), and the first look at it. */
  namespace: NamespaceReadiness;
  namespaceLooked: Promise<void>;
  temporal: TemporalSettings;
  taskQueue: string;
  httpAllow: string[];
  dbPoolMax: number;
  outboxRetentionDays: number;
  executionRetentionDays: number;
  databaseUrl: string;
  /** Opens mailbox credentials (made on first use: a deployment without mailboxes needs no key). */
  secrets: () => SecretBox;
  /** How often each mailbox is read even when IMAP IDLE announced nothing. */
  mailPollMs: number;
  shutdown: Shutdown;
  /** Say that tickets are served meanwhile (the API runs in this process too). */
  servesApi: boolean;
}): Promise<void> {
  const { orm, logger, shutdown } = deps;
  let bundle: { codePath: string } | undefined;
  const worker = new WorkerRetry({
    logger,
    start: async () =>
      startWorker({
        orm,
        logger,
        engine: deps.engine,
        temporal: deps.temporal,
        taskQueue: deps.taskQueue,
        httpAllow: deps.httpAllow,
        dbPoolMax: deps.dbPoolMax,
        secrets: deps.secrets,
        mailDelivery: deps.engine,
        workflowBundle: (bundle ??= await prebuiltBundle((reason) => logger.info(`bundling the workflow code: ${reason}`))),
      }),
    onStarted: async () => {
      await reconcileSchedules(orm, deps.schedules, logger);
      console.log(`Deskflow worker running on task queue "${deps.taskQueue}" (Temporal ${deps.temporal.address})`);
    },
  });
  const first = await shutdown.start('worker', () => worker.start(), () => worker.stop());
  if (!first.started) {
    console.error(
      `Workflow worker not started (${first.error.message.split('\n')[0]}); retrying in the background until Temporal ${deps.temporal.address} answers.` +
        (deps.servesApi ? ' Tickets are served meanwhile; automations run once it starts.' : ''),
    );
  }
  // Runs left pending by an earlier start are tried once the namespace has been looked at (and set up where allowed).
  await deps.namespaceLooked;
  const relay = createOutboxRelay({
    orm,
    engine: deps.engine,
    aiOwner: deps.engine,
    logger,
    databaseUrl: deps.databaseUrl,
    outboxRetentionDays: deps.outboxRetentionDays,
    executionRetentionDays: deps.executionRetentionDays,
    startsBlocked: () => deps.namespace.blockedBecause,
  });
  await shutdown.start('relay', async () => relay.start(), () => relay.stop());
  const mail = new MailWorker({
    orm,
    logger,
    databaseUrl: deps.databaseUrl,
    secrets: deps.secrets,
    pollMs: deps.mailPollMs,
    deliveries: new PendingMailDeliveries({ orm, starter: deps.engine, logger }),
    services: (em) => createServices(em, { logger, engine: deps.engine }),
  });
  await shutdown.start('mail', async () => mail.start(), () => mail.stop());
}
