import type { MikroORM } from '@mikro-orm/postgresql';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from '../src/logger.ts';
import type { WorkflowEngine } from '../src/executions/run-input.ts';
import { createActivities } from './activities/index.ts';
import { bundleWorkflows } from './bundle.ts';
import { tlsOptions, type TemporalSettings } from './client.ts';

export type WorkerDeps = {
  orm: MikroORM;
  logger: Logger;
  temporal: TemporalSettings;
  taskQueue: string;
  httpAllow: string[];
  /** Starts the runs of scheduled ticks. */
  engine?: WorkflowEngine;
  /** A prebuilt bundle (tests build it once); otherwise the worker bundles at start. */
  workflowBundle?: WorkflowBundle | { codePath: string };
};

export type RunningWorker = { worker: Worker; stop: () => Promise<void> };

/** Starts a worker that runs runGraph and its activities until stop() is called. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  quietRuntime();
  const connection = await NativeConnection.connect({
    address: deps.temporal.address,
    ...(deps.temporal.apiKey ? { apiKey: deps.temporal.apiKey } : {}),
    tls: deps.temporal.tls ? tlsOptions(deps.temporal) : false,
  });
  const worker = await Worker.create({
    connection,
    namespace: deps.temporal.namespace,
    taskQueue: deps.taskQueue,
    workflowBundle: deps.workflowBundle ?? (await bundleWorkflows()),
    activities: createActivities({ orm: deps.orm, logger: deps.logger, http: { allow: deps.httpAllow }, engine: deps.engine }),
    shutdownGraceTime: '5 seconds',
  });
  const running = worker.run().catch((err) => {
    deps.logger.error('worker stopped with an error', { error: String(err) });
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

let runtimeInstalled = false;

/** The SDK logs worker state changes at INFO to stdout; keep its warnings and errors only. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* already installed by the host process */
  }
}
