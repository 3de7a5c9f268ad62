import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { handOffAll, retryUntilAcknowledged, type PendingRows } from '../../../src/common/retry-until-acknowledged.ts';
import { createLogger } from '../../../src/logger.ts';

/** An EntityManager whose transaction just runs the callback: the helper only passes it on. */
const em = { transactional: async <T>(fn: (tx: EntityManager) => Promise<T>) => fn(em) } as unknown as EntityManager;

type Row = { id: number; failing?: boolean };

function rows(pending: Row[]) {
  const seen = { handedOff: [] as number[], acknowledged: [] as number[], failed: [] as number[], warnings: 0 };
  const spec: PendingRows<Row> = {
    what: 'test rows',
    claim: async (_em, limit) => pending.slice(0, limit),
    handOff: async (row) => {
      seen.handedOff.push(row.id);
      if (row.failing) throw new Error(`row ${row.id} refused`);
    },
    acknowledge: async (_em, done) => void seen.acknowledged.push(...done.map((r) => r.id)),
    noteFailure: async (_em, failed) => void seen.failed.push(...failed.map((f) => f.row.id)),
    describe: (row) => ({ rowId: row.id }),
  };
  const logger = createLogger('silent');
  const counting = Object.assign(Object.create(logger), { warn: () => (seen.warnings += 1) });
  return { spec, seen, logger: counting };
}

describe('retryUntilAcknowledged', () => {
  it('marks the rows Temporal took and notes the others, logging the pass once', async () => {
    const { spec, seen, logger } = rows([{ id: 1 }, { id: 2, failing: true }, { id: 3, failing: true }, { id: 4 }]);
    const pass = await retryUntilAcknowledged(em, 10, spec, logger);
    expect(pass).toEqual({ claimed: 4, acknowledged: 2, failed: 2 });
    expect(seen.acknowledged.sort()).toEqual([1, 4]);
    expect(seen.failed.sort()).toEqual([2, 3]);
    expect(seen.warnings).toBe(1);
  });

  it('backs off when the first row fails: the rest of the batch waits for the next pass', async () => {
    const { spec, seen, logger } = rows([{ id: 1, failing: true }, { id: 2 }, { id: 3 }]);
    const pass = await retryUntilAcknowledged(em, 10, spec, logger);
    expect(pass).toEqual({ claimed: 3, acknowledged: 0, failed: 1 });
    expect(seen.handedOff).toEqual([1]);
    expect(seen.acknowledged).toEqual([]);
  });

  it('does nothing when nothing is pending', async () => {
    const { spec, seen, logger } = rows([]);
    expect(await retryUntilAcknowledged(em, 10, spec, logger)).toEqual({ claimed: 0, acknowledged: 0, failed: 0 });
    expect(seen.warnings).toBe(0);
  });
});

describe('handOffAll', () => {
  it('tries every row and says which were acknowledged', async () => {
    const result = await handOffAll([1, 2, 3], async (n) => {
      if (n === 2) throw new Error('no');
    });
    expect(result.acknowledged.sort()).toEqual([1, 3]);
    expect(result.failed.map((f) => f.row)).toEqual([2]);
  });
});
