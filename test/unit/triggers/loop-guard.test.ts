import { describe, expect, it } from 'vitest';
import { loopGuard, MAX_CHAIN_DEPTH } from '../../../src/triggers/loop-guard.ts';

// docs/automations.md, "Loop guard": the decision alone; test/engine/loop-guard.test.ts runs real chains.

const causedBy = (chain: string[]) => ({ workflowId: chain.at(-1)!, executionId: 'ex-1', chain });

describe('the loop guard', () => {
  it('lets any workflow start for a change made through the API', () => {
    expect(loopGuard(null, 'wf-a')).toBeNull();
  });

  it('lets a workflow start that has not run in the chain yet', () => {
    expect(loopGuard(causedBy(['wf-a', 'wf-b']), 'wf-c')).toBeNull();
  });

  it('refuses a workflow that already ran in the chain, wherever in it', () => {
    for (const chain of [['wf-a'], ['wf-a', 'wf-b'], ['wf-b', 'wf-a', 'wf-c']]) {
      expect(loopGuard(causedBy(chain), 'wf-a')).toBe('already ran in this chain for the ticket');
    }
  });

  it(`stops a chain at depth ${MAX_CHAIN_DEPTH}`, () => {
    const chainOf = (length: number) => Array.from({ length }, (_, i) => `wf-${i}`);
    expect(loopGuard(causedBy(chainOf(MAX_CHAIN_DEPTH - 1)), 'wf-new')).toBeNull();
    expect(loopGuard(causedBy(chainOf(MAX_CHAIN_DEPTH)), 'wf-new')).toBe('depth limit reached');
  });
});
