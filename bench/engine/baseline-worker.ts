import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pg from 'pg';

/**
 * The bench-only worker of the baseline workflows: a process of its own, like Deskflow's
 * worker, with the SDK's default worker options. Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * BENCH_TASK_QUEUE, DATABASE_URL, POOL_MAX. Prints "ready" once it polls.
 */
Runtime.install({ logger: new DefaultLogger('WARN') });
const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
const silent = () => {};
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.BENCH_TASK_QUEUE!,
  workflowBundle: await bundleWorkflowCode({
    workflowsPath: path.join(path.dirname(fileURLToPath(import.meta.url)), 'baseline-workflows.ts'),
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: (m: string) => console.error(m) },
  }),
  activities: {
    async touchTicket(ticketId: string): Promise<void> {
      await db.query('update tickets set updated_at = clock_timestamp() where id = $1', [ticketId]);
    },
  },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => worker.shutdown());
const running = worker.run();
console.log('ready');
await running;
await connection.close();
await db.end();
