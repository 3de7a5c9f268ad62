import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

export const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'workflows', 'index.ts');

/**
 * Bundles the workflow code for the Temporal sandbox. It fails on a module the sandbox must
 * not load (Node built-ins, I/O libraries), which keeps the workflows deterministic.
 */
export async function bundleWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath,
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: (m: string) => console.error(m) },
    webpackConfigHook: (config) => ({
      ...config,
      // Relative imports carry their .ts extension (the code runs on Node's type stripping).
      resolve: { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'] } },
    }),
  });
}
