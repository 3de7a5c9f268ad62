import type { TestProject } from 'vitest/node';
import { prebuiltBundle } from '../../temporal/bundle.ts';
import { startDevServer } from '../../temporal/dev-server.ts';
import { freePort } from './ports.ts';
import { onTemporalCluster, startTemporalCluster } from './temporal-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalPort: number;
    workflowBundlePath: string;
  }
}

/**
 * Once per test run: a Temporal dev server (in memory, headless, on a free port, with the
 * search attributes registered), or under `npm run test:cluster` a real Temporal server on the
 * run's PostgreSQL, and the workflow bundle, shared by the engine tests. Each test file runs
 * its own worker on a task queue of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer(project);
  try {
    // The bundle workers start from: built at install, rebuilt here if the sources changed since.
    const bundle = await prebuiltBundle(() => {});
    project.provide('temporalAddress', server.address);
    project.provide('temporalPort', server.port);
    project.provide('workflowBundlePath', bundle.codePath);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server.stop;
}

async function startServer(project: TestProject): Promise<{ address: string; port: number; stop: () => Promise<void> }> {
  if (onTemporalCluster()) {
    // global-setup.ts has provided the run's database by now; the cluster's go beside it.
    const cluster = await startTemporalCluster(project.getProvidedContext().databaseUrl);
    return { address: cluster.address, port: cluster.port, stop: cluster.destroy };
  }
  const port = await freePort();
  const server = await startDevServer({ port, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });
  return { address: server.address, port, stop: server.stop };
}
