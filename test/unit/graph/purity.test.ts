// src/graph runs inside the Temporal workflow sandbox: it must import nothing outside itself
// and must not touch the clock, randomness or I/O.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../../src/graph/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

describe('src/graph purity', () => {
  it('has source files', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  for (const file of files) {
    it(`${file} imports only sibling .ts files and uses no clock, randomness or process`, () => {
      const text = readFileSync(`${dir}${file}`, 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
      for (const s of specifiers) expect(s, `${file}: ${s}`).toMatch(/^\.\/[\w-]+\.ts$/);
      expect(text).not.toMatch(/\bimport\s*\(/);
      expect(text).not.toMatch(/\brequire\s*\(/);
      expect(text).not.toMatch(/Date\.now|new Date\(|Math\.random|process\.|setTimeout|setInterval|globalThis|\bfetch\(/);
    });
  }
});
