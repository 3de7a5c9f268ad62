import { cruise, type IModule } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The dependency rules of the code base, checked on the imports that exist at run time (type-only
 * imports are erased): modules never import each other in a circle, the graph module is pure, and
 * the workflow sandbox loads only what is deterministic. A module is a folder under src/ or
 * temporal/, or a file directly in one of them.
 */
let modules: IModule[];
beforeAll(async () => {
  const result = await cruise(['src', 'temporal'], { tsPreCompilationDeps: false, doNotFollow: { path: 'node_modules' } }, undefined, {
    tsConfig: { fileName: 'tsconfig.json' },
  });
  modules = (result.output as { modules: IModule[] }).modules.filter((m) => /^(src|temporal)\//.test(m.source));
}, 60_000);

/**
 * Packages the graph module (and so the workflow sandbox) may load: pure, dependency-free
 * JavaScript, checked for clocks, randomness and I/O in test/unit/graph/purity.test.ts.
 */
const PURE_PACKAGES = ['re2js'];

const moduleOf = (file: string) => {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
};
const localDependencies = (m: IModule) => m.dependencies.filter((d) => /^(src|temporal|migrations)\//.test(d.resolved)).map((d) => d.resolved);

/** Strongly connected components with more than one module (Tarjan). */
function moduleCycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do component.push((w = stack.pop()!));
      while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('architecture', () => {
  it('finds a cycle between modules when there is one (the check can fail)', () => {
    const edges = new Map([['src/a', new Set(['src/b'])], ['src/b', new Set(['src/c'])], ['src/c', new Set(['src/a'])], ['src/d', new Set(['src/a'])]]);
    expect(moduleCycles(edges)).toEqual([['src/a', 'src/b', 'src/c']]);
  });

  it('has no import cycles between modules', () => {
    const edges = new Map<string, Set<string>>();
    for (const m of modules) {
      const from = moduleOf(m.source);
      for (const to of localDependencies(m).map(moduleOf)) {
        if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    expect(moduleCycles(edges)).toEqual([]);
  });

  it('keeps src/graph pure: it imports nothing outside itself but the pure packages', () => {
    for (const m of modules.filter((m) => m.source.startsWith('src/graph/'))) {
      const outside = m.dependencies.filter((d) => !d.resolved.startsWith('src/graph/') && !PURE_PACKAGES.includes(d.module)).map((d) => d.resolved);
      expect(outside, m.source).toEqual([]);
    }
  });

  it('loads only deterministic code into the workflow sandbox: @temporalio/workflow, src/graph (with its pure packages) and temporal/workflows', () => {
    const bySource = new Map(modules.map((m) => [m.source, m]));
    const seen = new Set<string>();
    const queue = modules.filter((m) => m.source.startsWith('temporal/workflows/')).map((m) => m.source);
    while (queue.length > 0) {
      const source = queue.pop()!;
      if (seen.has(source)) continue;
      seen.add(source);
      for (const d of bySource.get(source)?.dependencies ?? []) {
        const allowed =
          d.module === '@temporalio/workflow' ||
          /^(src\/graph|temporal\/workflows)\//.test(d.resolved) ||
          (source.startsWith('src/graph/') && PURE_PACKAGES.includes(d.module));
        expect(allowed, `${source} imports ${d.module}`).toBe(true);
        queue.push(d.resolved);
      }
    }
    expect(seen.size).toBeGreaterThan(3);
  });
});
