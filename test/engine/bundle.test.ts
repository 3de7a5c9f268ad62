import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { bundleWorkflows } from '../../temporal/bundle.ts';

// ARCHITECTURE: temporal/workflows/** runs in the deterministic sandbox. Bundling is the guard:
// the real workflows bundle, and a workflows file that imports a forbidden module does not.

const fixture = (name: string) => path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', name);

/** Bundles a workflows file; returns what went wrong (the error and what the bundler logged), or null. */
async function bundleProblem(workflowsPath: string): Promise<string | null> {
  const logged: string[] = [];
  const keep = (message: string) => void logged.push(message);
  try {
    await bundleWorkflowCode({ workflowsPath, logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: keep, error: keep } });
    return null;
  } catch (err) {
    return [String(err), ...logged].join('\n');
  }
}

describe('workflow bundle', () => {
  it('bundles the workflows the worker registers', async () => {
    const bundle = await bundleWorkflows();
    expect(bundle.code).toContain('runGraph');
    expect(bundle.code, 'the RE2 engine of `matches` conditions').toContain('class RE2JS');
  }, 60_000);

  it.each([
    ['a Node built-in (node:fs)', 'forbidden-fs-workflows.ts', /ERROR in node:fs/],
    ['an I/O library (pg)', 'forbidden-pg-workflows.ts', /disallowed modules.*'(net|dns|fs|tls|crypto)'/s],
  ])('refuses workflow code that imports %s', async (_what, file, reason) => {
    const problem = await bundleProblem(fixture(file));
    expect(problem).not.toBeNull();
    expect(problem).toMatch(reason);
  }, 60_000);
});
