import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The workflow code runs in Temporal's deterministic sandbox: it may import only
 * @temporalio/workflow, the pure graph module, types, and its own folder (ARCHITECTURE.md).
 */
const root = path.resolve(import.meta.dirname, '../..');
const workflowsDir = path.join(root, 'temporal/workflows');

function importsOf(file: string): Array<{ spec: string; typeOnly: boolean }> {
  const source = fs.readFileSync(file, 'utf8');
  return [...source.matchAll(/^import\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => ({ spec: m[2], typeOnly: Boolean(m[1]) }));
}

describe('workflow sandbox imports', () => {
  const files = fs.readdirSync(workflowsDir).filter((f) => f.endsWith('.ts')).map((f) => path.join(workflowsDir, f));

  it.each(files.map((f) => [path.relative(root, f), f]))('%s imports only what the sandbox allows', (_name, file) => {
    for (const { spec, typeOnly } of importsOf(file)) {
      if (typeOnly) continue; // erased at bundling
      const resolved = spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)) : spec;
      const allowed =
        spec === '@temporalio/workflow' || resolved.startsWith('temporal/workflows/') || resolved.startsWith('src/graph/');
      expect(allowed, `${path.relative(root, file)} imports ${spec}`).toBe(true);
    }
  });
});
