import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { EngineApp } from './engine.ts';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'engine', 'fixtures', 'worker-process.ts');

/**
 * A Deskflow worker in a process of its own (test/engine/fixtures/worker-process.ts) on the
 * app's Temporal server and task queue; resolves once it polls. `env` adds settings
 * (DESKFLOW_HTTP_ALLOW, TEMPORAL_METRICS_ADDRESS).
 */
export function spawnWorker(app: EngineApp, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture], {
    env: {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: app.temporal.address,
      TASK_QUEUE: app.taskQueue,
      WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/^ready$/m.test(output)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => reject(new Error(`worker process exited (${code ?? signal}) before it was ready:\n${output}`)));
  });
}
