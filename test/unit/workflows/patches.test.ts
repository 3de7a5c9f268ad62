import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as ledger from '../../../temporal/workflows/patches.ts';

/**
 * The patch ledger (temporal/workflows/patches.ts) against the code and the saved histories: every
 * patch the workflows ask about is in it, by its constant; every entry is still asked about; and
 * the history it names exists and replays the path from before the patch (no marker of it).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const workflowsDir = path.join(root, 'temporal', 'workflows');
const historiesDir = path.join(root, 'test', 'engine', 'histories');

const workflowSources = fs
  .readdirSync(workflowsDir, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => path.join(e.parentPath, e.name));

/** The code of a source file, without its comments (which may mention patched() in prose). */
const codeOf = (file: string) => fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Each `patched(…)` / `deprecatePatch(…)` call in the workflow code: its file and its argument as written. */
const patchCalls = workflowSources.flatMap((file) =>
  [...codeOf(file).matchAll(/\b(?:patched|deprecatePatch)\(\s*([^)]*?)\s*\)/g)].map((m) => ({ file: path.relative(root, file), argument: m[1] })),
);

const constants = new Map(Object.entries(ledger as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
const ids: string[] = ledger.PATCHES.map((p) => p.id);

/** The patch ids whose markers a saved history holds. */
function markersOf(history: string): string[] {
  const json = JSON.parse(fs.readFileSync(path.join(historiesDir, history), 'utf8')) as { events: Array<{ markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads: Array<{ data: string }> }> } }> };
  return json.events
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === 'core_patch')
    .map((m) => (JSON.parse(Buffer.from(m!.details!['patch-data'].payloads[0].data, 'base64').toString()) as { id: string }).id);
}

describe('the patch ledger', () => {
  it('finds the patch calls of the workflow code (the check can fail)', () => {
    expect(patchCalls.length).toBeGreaterThanOrEqual(ids.length);
  });

  it('names every patch the workflows use, and they use it by its constant', () => {
    for (const { file, argument } of patchCalls) {
      expect(constants.has(argument), `${file}: patched(${argument}) is not a constant of temporal/workflows/patches.ts`).toBe(true);
      expect(ids, `${file}: ${argument}`).toContain(constants.get(argument));
    }
  });

  it('lists each patch once, and only patches still in use', () => {
    expect(new Set(ids).size).toBe(ids.length);
    const used = new Set<string | undefined>(patchCalls.map((c) => constants.get(c.argument)));
    for (const id of ids) expect(used.has(id), `${id} is in the ledger but no workflow asks patched() or deprecatePatch() about it`).toBe(true);
  });

  it('names saved histories that exist and take the path from before their patch', () => {
    for (const patch of ledger.PATCHES) {
      expect(patch.openRunsQuery).toContain(`StartTime < "${patch.since}"`);
      expect(patch.commit).toMatch(/^[0-9a-f]{40}$/);
      if (patch.olderPathHistory === null) continue;
      expect(fs.existsSync(path.join(historiesDir, patch.olderPathHistory)), `${patch.id}: test/engine/histories/${patch.olderPathHistory}`).toBe(true);
      expect(markersOf(patch.olderPathHistory), `${patch.olderPathHistory} was made before ${patch.id}`).not.toContain(patch.id);
    }
  });
});
