import type { MikroORM } from '@mikro-orm/postgresql';
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { errorFields, type Logger } from '../src/logger.ts';
import type { WorkflowEngine } from '../src/executions/engine.ts';
import { createActivities } from './activities/index.ts';
import { createMailActivities } from './activities/mail.ts';
import { createAiActivities } from './activities/ai.ts';
import type { MailDeliveryStarter } from '../src/mail/outbound.ts';
import type { SecretBox } from '../src/mail/secrets.ts';
import { prebuiltBundle } from './bundle.ts';
import { tlsOptions, type TemporalSettings } from './client.ts';
import { installTemporalRuntime } from './runtime.ts';

export type WorkerDeps = {
  orm: MikroORM;
  logger: Logger;
  temporal: TemporalSettings;
  taskQueue: string;
  httpAllow: string[];
  /** Database connections of this process (DB_POOL_MAX): local activities run at most that many at once, less two for the relay. */
  dbPoolMax?: number;
  /** Starts the runs of scheduled ticks. */
  engine?: WorkflowEngine;
  /** Opens mailbox credentials (SMTP delivery); a worker without it fails deliveries with the reason. */
  secrets?: () => SecretBox;
  /** Starts the delivery workflows of the AI owner's replies right after their commit (else the mail worker does). */
  mailDelivery?: MailDeliveryStarter;
  /** A bundle of the tests' own; otherwise the one built at install, checked against the sources. */
  workflowBundle?: WorkflowBundle | { codePath: string };
};

export type RunningWorker = { worker: Worker; stop: () => Promise<void> };

const noSecrets = (): SecretBox => {
  throw new Error('this worker was started without the key that opens mailbox credentials');
};

/** Starts a worker that runs runGraph and its activities until stop() is called. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  // The process entry installs the runtime first (src/server.ts); a worker started elsewhere gets one with its logger.
  installTemporalRuntime({ logger: deps.logger });
  const connection = await NativeConnection.connect({
    address: deps.temporal.address,
    ...(deps.temporal.apiKey ? { apiKey: deps.temporal.apiKey } : {}),
    tls: deps.temporal.tls ? tlsOptions(deps.temporal) : false,
  });
  const worker = await Worker.create({
    connection,
    namespace: deps.temporal.namespace,
    taskQueue: deps.taskQueue,
    workflowBundle: deps.workflowBundle ?? (await prebuiltBundle((reason) => deps.logger.info(`bundling the workflow code: ${reason}`))),
    activities: {
      ...createActivities({ orm: deps.orm, logger: deps.logger, http: { allow: deps.httpAllow }, engine: deps.engine }),
      ...createMailActivities({ orm: deps.orm, logger: deps.logger, secrets: deps.secrets ?? noSecrets }),
      ...createAiActivities({ orm: deps.orm, logger: deps.logger, secrets: deps.secrets ?? noSecrets, httpAllow: deps.httpAllow, mailDelivery: deps.mailDelivery }),
    },
    shutdownGraceTime: '5 seconds',
    // Each local activity holds a database connection for its transaction: more at once than
    // the pool has only queue in the pool, and past its wait limit they fail and back off.
    maxConcurrentLocalActivityExecutions: Math.max(1, (deps.dbPoolMax ?? 10) - 2),
    // Finished runs leave the cache at once; this bounds the memory of runs that wait (a delay,
    // a reply), which are replayed from their (short) history when they resume.
    maxCachedWorkflows: 200,
  }).catch(async (err) => {
    // A start that is retried later must not leave a connection behind per attempt.
    await connection.close().catch(() => {});
    throw err;
  });
  const running = worker.run().catch((err) => {
    deps.logger.error('worker stopped with an error', errorFields(err));
  });
  return {
    worker,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
