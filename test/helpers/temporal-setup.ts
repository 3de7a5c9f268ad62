import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../temporal/bundle.ts';
import { startDevServer } from '../../temporal/dev-server.ts';
import { freePort } from './ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalPort: number;
    workflowBundlePath: string;
  }
}

/**
 * Once per test run: a Temporal dev server (in memory, headless, on a free port, with the
 * search attributes registered) and the workflow bundle, shared by the engine tests. Each
 * test file runs its own worker on a task queue of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  const server = await startDevServer({ port, uiPort: null, cliPath: process.env.TEMPORAL_CLI_PATH });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-bundle-'));
  try {
    const bundle = await bundleWorkflows();
    const bundlePath = path.join(dir, 'workflows.js');
    await fs.writeFile(bundlePath, bundle.code);
    project.provide('temporalAddress', server.address);
    project.provide('temporalPort', port);
    project.provide('workflowBundlePath', bundlePath);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return async () => {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
