import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * Once per test run: the console the tests open in Chromium is the one of these sources. `npm ci`
 * builds it; after an edit of console/ or src/graph it is built again here, so a browser test
 * never passes on a stale build.
 */
export default function setup(): void {
  const index = path.join(root, 'console', 'dist', 'index.html');
  const sources = Math.max(newest(path.join(root, 'console', 'src')), newest(path.join(root, 'src', 'graph')), statSync(path.join(root, 'console', 'index.html')).mtimeMs);
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(root, 'console', 'build.ts')], { cwd: root, stdio: 'inherit' });
}
