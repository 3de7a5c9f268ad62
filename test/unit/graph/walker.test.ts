import { describe, expect, it } from 'vitest';
import { GraphWalker, findTriggerNode, isBranchingNode, nodeById, outcomeEdges } from '../../../src/graph/index.ts';
import type { WorkflowGraph } from '../../../src/graph/index.ts';
import { action, condition, edge, expectValid, trigger } from './fixtures.ts';
import type { Json } from './fixtures.ts';

function graph(nodes: Json[], edges: Json[]): WorkflowGraph {
  return expectValid({ nodes: [trigger(), ...nodes], edges });
}
const wait = (id: string): Json => action(id, { actionType: 'wait_for_reply', timeoutSeconds: 60 });

/**
 * Runs the walker to the end, completing ready nodes one at a time in the order they became
 * ready, with `outcomes` for branching nodes. Returns the run order.
 */
function run(g: WorkflowGraph, outcomes: Record<string, boolean> = {}): { order: string[]; walker: GraphWalker } {
  const walker = new GraphWalker(g);
  const queue = walker.start();
  const order: string[] = [];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    order.push(id);
    queue.push(...walker.complete(id, outcomes[id]));
  }
  expect(walker.isFinished()).toBe(true);
  return { order, walker };
}

describe('GraphWalker', () => {
  it('runs a linear chain in order', () => {
    const g = graph([action('a1'), action('a2'), action('a3')], [edge('trigger', 'a1'), edge('a1', 'a2'), edge('a2', 'a3')]);
    const { order, walker } = run(g);
    expect(order).toEqual(['trigger', 'a1', 'a2', 'a3']);
    expect(walker.skipped()).toEqual([]);
    expect(walker.completed()).toEqual(['trigger', 'a1', 'a2', 'a3']);
  });

  it('a trigger-only graph finishes after the trigger', () => {
    const walker = new GraphWalker(graph([], []));
    expect(walker.isFinished()).toBe(false);
    expect(walker.start()).toEqual(['trigger']);
    expect(walker.isFinished()).toBe(false);
    expect(walker.complete('trigger')).toEqual([]);
    expect(walker.isFinished()).toBe(true);
  });

  describe('condition branches', () => {
    const g = graph([condition('c1'), action('yes'), action('no'), action('yes2')], [edge('trigger', 'c1'), edge('c1', 'yes', 'true'), edge('c1', 'no', 'false'), edge('yes', 'yes2')]);
    it('follows the true edges when the condition holds', () => {
      const { order, walker } = run(g, { c1: true });
      expect(order).toEqual(['trigger', 'c1', 'yes', 'yes2']);
      expect(walker.skipped()).toEqual(['no']);
    });
    it('follows the false edges when it does not, skipping the whole true branch', () => {
      const { order, walker } = run(g, { c1: false });
      expect(order).toEqual(['trigger', 'c1', 'no']);
      expect(walker.skipped()).toEqual(['yes', 'yes2']);
    });
  });

  it('treats an unlabelled edge out of a condition as true', () => {
    const g = graph([condition('c1'), action('a1')], [edge('trigger', 'c1'), edge('c1', 'a1')]);
    expect(run(g, { c1: true }).order).toEqual(['trigger', 'c1', 'a1']);
    const off = run(g, { c1: false });
    expect(off.order).toEqual(['trigger', 'c1']);
    expect(off.walker.skipped()).toEqual(['a1']);
  });

  it('branches a wait_for_reply action like a condition', () => {
    const g = graph([wait('w1'), action('replied'), action('timedOut')], [edge('trigger', 'w1'), edge('w1', 'replied'), edge('w1', 'timedOut', 'false')]);
    expect(run(g, { w1: true }).order).toEqual(['trigger', 'w1', 'replied']);
    expect(run(g, { w1: false }).order).toEqual(['trigger', 'w1', 'timedOut']);
  });

  it('fans out: every edge of a non-branching node is taken, ready ids in nodes order', () => {
    const g = graph([action('b'), action('a'), action('c')], [edge('trigger', 'c'), edge('trigger', 'a'), edge('trigger', 'b')]);
    const walker = new GraphWalker(g);
    walker.start();
    expect(walker.complete('trigger')).toEqual(['b', 'a', 'c']);
    expect(walker.isFinished()).toBe(false);
    walker.complete('a');
    walker.complete('c');
    expect(walker.isFinished()).toBe(false);
    walker.complete('b');
    expect(walker.isFinished()).toBe(true);
  });

  it('runs a diamond join once, after both branches', () => {
    const g = graph([action('left'), action('right'), action('join')], [edge('trigger', 'left'), edge('trigger', 'right'), edge('left', 'join'), edge('right', 'join')]);
    const walker = new GraphWalker(g);
    walker.start();
    expect(walker.complete('trigger')).toEqual(['left', 'right']);
    expect(walker.complete('right')).toEqual([]);
    expect(walker.complete('left')).toEqual(['join']);
    expect(walker.complete('join')).toEqual([]);
    expect(walker.isFinished()).toBe(true);
  });

  it('runs a join after a branch that was not taken', () => {
    const g = graph(
      [condition('c1'), action('onlyIfTrue'), action('always'), action('join')],
      [edge('trigger', 'c1'), edge('trigger', 'always'), edge('c1', 'onlyIfTrue', 'true'), edge('onlyIfTrue', 'join'), edge('always', 'join')],
    );
    const walker = new GraphWalker(g);
    walker.start();
    expect(walker.complete('trigger')).toEqual(['c1', 'always']);
    expect(walker.complete('always')).toEqual([]); // still waiting on the c1 branch
    expect(walker.complete('c1', false)).toEqual(['join']);
    expect(walker.skipped()).toEqual(['onlyIfTrue']);
    walker.complete('join');
    expect(walker.isFinished()).toBe(true);
  });

  it('skips a node whose incoming edges are all dead, cascading downstream', () => {
    const g = graph(
      [condition('c1'), action('a'), action('b'), action('join'), action('after')],
      [edge('trigger', 'c1'), edge('c1', 'a', 'true'), edge('c1', 'b', 'true'), edge('a', 'join'), edge('b', 'join'), edge('join', 'after')],
    );
    const { order, walker } = run(g, { c1: false });
    expect(order).toEqual(['trigger', 'c1']);
    expect(walker.skipped()).toEqual(['a', 'b', 'join', 'after']);
  });

  it('a condition with both edges to the same target runs it either way', () => {
    const g = graph([condition('c1'), action('a1')], [edge('trigger', 'c1'), edge('c1', 'a1', 'true'), edge('c1', 'a1', 'false')]);
    expect(run(g, { c1: false }).order).toEqual(['trigger', 'c1', 'a1']);
  });

  it('is deterministic: same graph and outcomes, same order', () => {
    const g = graph(
      [condition('c1'), action('x'), action('y'), action('z'), action('j')],
      [edge('trigger', 'z'), edge('trigger', 'c1'), edge('trigger', 'y'), edge('c1', 'x'), edge('x', 'j'), edge('y', 'j'), edge('z', 'j')],
    );
    const first = run(g, { c1: true }).order;
    for (let k = 0; k < 5; k += 1) expect(run(g, { c1: true }).order).toEqual(first);
    expect(first).toEqual(['trigger', 'c1', 'y', 'z', 'x', 'j']);
  });

  it('refuses misuse loudly', () => {
    const g = graph([condition('c1')], [edge('trigger', 'c1')]);
    const walker = new GraphWalker(g);
    expect(() => walker.complete('trigger')).toThrow(/not running/);
    walker.start();
    expect(() => walker.start()).toThrow(/twice/);
    expect(() => walker.complete('nope')).toThrow(/unknown node/);
    walker.complete('trigger');
    expect(() => walker.complete('trigger')).toThrow(/not running/);
    expect(() => walker.complete('c1')).toThrow(/needs a true\/false outcome/);
  });
});

describe('graph helpers', () => {
  const g = graph([condition('c1'), action('t'), action('f'), wait('w')], [edge('trigger', 'c1'), edge('c1', 't', 'true'), edge('c1', 'f', 'false'), edge('c1', 'w')]);
  it('nodeById and findTriggerNode', () => {
    const byId = nodeById(g);
    expect(byId.get('c1')?.type).toBe('condition');
    expect(byId.size).toBe(5);
    expect(findTriggerNode(g)?.id).toBe('trigger');
  });
  it('isBranchingNode: conditions and wait_for_reply only', () => {
    const byId = nodeById(g);
    expect(['trigger', 'c1', 't', 'w'].map((id) => isBranchingNode(byId.get(id) as never))).toEqual([false, true, false, true]);
  });
  it('outcomeEdges splits by label for branching nodes', () => {
    const c1 = nodeById(g).get('c1');
    if (c1 === undefined) throw new Error('missing');
    const onTrue = outcomeEdges(g, c1, true);
    expect(onTrue.taken.map((e) => e.target)).toEqual(['t', 'w']);
    expect(onTrue.notTaken.map((e) => e.target)).toEqual(['f']);
    expect(outcomeEdges(g, c1, false).taken.map((e) => e.target)).toEqual(['f']);
    const trig = findTriggerNode(g);
    if (trig === undefined) throw new Error('missing');
    expect(outcomeEdges(g, trig).taken.map((e) => e.target)).toEqual(['c1']);
  });
});
