// src/graph runs inside the Temporal workflow sandbox: it must import nothing outside itself
// but the packages listed here, and neither it nor they may touch the clock, randomness or I/O.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../../src/graph/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
/** Packages src/graph may import: pure JavaScript with no dependencies (re2js: `matches`). */
const PACKAGES = ['re2js'];

describe('src/graph purity', () => {
  it('has source files', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  for (const file of files) {
    it(`${file} imports only sibling .ts files and uses no clock, randomness or process`, () => {
      const text = readFileSync(`${dir}${file}`, 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
      for (const s of specifiers) expect(PACKAGES.includes(s) || /^\.\/[\w-]+\.ts$/.test(s), `${file}: ${s}`).toBe(true);
      expect(text).not.toMatch(/\bimport\s*\(/);
      expect(text).not.toMatch(/\brequire\s*\(/);
      expect(text).not.toMatch(/Date\.now|new Date\(|Math\.random|process\.|setTimeout|setInterval|globalThis|\bfetch\(/);
    });
  }
  it.each(PACKAGES)('%s is self-contained and uses no clock, randomness, timers or I/O', (name) => {
    const manifest = fileURLToPath(new URL(`../../../node_modules/${name}/package.json`, import.meta.url));
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    // The ES module build is what the workflow bundle includes ({import('…')} are JSDoc types).
    const code = readFileSync(path.join(path.dirname(manifest), pkg.module), 'utf8');
    expect(code).not.toMatch(/Date\.now|new Date\(|Math\.random|performance\.|process\.|setTimeout|setInterval|\bfetch\(|\brequire\(|(?<!\{)\bimport\s*\(/);
  });
});
