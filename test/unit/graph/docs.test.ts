// docs/automations.md is the reference the code and tests cite: it must cover the whole
// vocabulary, and the sections cited as `docs/automations.md ("Section")` must exist.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, HTTP_METHODS, OPERATORS, TRIGGER_TYPES } from '../../../src/graph/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(`${root}docs/automations.md`, 'utf8');
const headings = [...doc.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]);

/** The text of the section under `heading`, up to the next heading of any level. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`) === -1 ? doc.indexOf(`\n### ${heading}\n`) : doc.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const rest = doc.slice(start + heading.length + 5);
  const end = rest.search(/\n#{2,3} /);
  return end === -1 ? rest : rest.slice(0, end);
}

describe('docs/automations.md', () => {
  it('documents every trigger type, operator, action type and HTTP method', () => {
    for (const t of TRIGGER_TYPES) expect(section('Triggers and the run context'), t).toContain(`| \`${t}\` |`);
    for (const op of OPERATORS) expect(section('Operators'), op).toContain(`\`${op}\``);
    for (const a of ACTION_TYPES) expect(section('Actions'), a).toContain(`\`${a}\``);
    for (const m of HTTP_METHODS) expect(section('http_request'), m).toContain(`\`${m}\``);
  });

  it('has every section that the code and the tests cite', () => {
    const files = ['src', 'temporal', 'test'].flatMap((dir) =>
      readdirSync(`${root}${dir}`, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && !f.endsWith('docs.test.ts'))
        .map((f) => `${dir}/${f}`),
    );
    const cited = new Set<string>();
    for (const file of files) {
      const text = readFileSync(`${root}${file}`, 'utf8');
      // docs/automations.md ("A", "B") or docs/automations.md, "A"
      for (const m of text.matchAll(/docs\/automations\.md,?\s*\(?((?:"[^"]+",?\s*)+)/g)) {
        for (const name of m[1].matchAll(/"([^"]+)"/g)) cited.add(name[1]);
      }
    }
    expect(cited.size).toBeGreaterThan(3); // the citations are found at all
    for (const name of cited) expect(headings.some((h) => h === name || h.startsWith(`${name}:`)), `section "${name}"`).toBe(true);
  });
});
