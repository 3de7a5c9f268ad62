import type { EntityManager } from '@mikro-orm/postgresql';
import { errorFields, type Logger } from '../logger.ts';

/**
 * "Retry until acknowledged": work Temporal has to take (a run to start, a reply to signal, a
 * mail delivery to start) is a row in PostgreSQL, written with the change that asked for it,
 * and it stays there, pending, until Temporal has acknowledged it. This file is the one place
 * that decides what handing such rows over means, and what a failed attempt means.
 *
 * - A row is acknowledged when its hand-over resolved: it is marked so (`acknowledge`), in the
 *   transaction that claimed it. Hand-overs are safe to repeat (fixed workflow ids, replies
 *   kept by message id), so a row handed over twice, by two passes or two processes, is harmless.
 * - A failed hand-over means Temporal could not take it now (unreachable, restarting,
 *   overloaded): the row stays pending, its failure noted (`noteFailure`), for the next pass.
 *   Nothing is given up here: whatever cannot ever succeed is the handing-over code's to absorb
 *   (a finished run ignores a signal; a refused mail is the mail sender's to fail).
 * - A pass logs its failures once (how many, and the first error), never once per row.
 * - Back-off: a pending pass hands over its first row alone; if Temporal does not take that
 *   one, the pass stops there and leaves the batch for the next pass (the caller's poll),
 *   instead of sending every row of the batch to wait for the same time-out.
 */

/** What a hand-over did: the rows Temporal acknowledged, and the failures (row and error). */
type HandOffResult<Row> = { acknowledged: Row[]; failed: Array<{ row: Row; error: unknown }> };

/** Hands every row to Temporal at once; returns which were acknowledged and which failed. */
export async function handOffAll<Row>(rows: Row[], handOff: (row: Row) => Promise<void>): Promise<HandOffResult<Row>> {
  const result: HandOffResult<Row> = { acknowledged: [], failed: [] };
  await Promise.all(
    rows.map(async (row) => {
      try {
        await handOff(row);
        result.acknowledged.push(row);
      } catch (error) {
        result.failed.push({ row, error });
      }
    }),
  );
  return result;
}

export type PendingRows<Row> = {
  /** Names the rows in the log ("execution starts", "reply signals"). */
  what: string;
  /** Claims up to `limit` pending rows in the transaction of `em`: FOR UPDATE SKIP LOCKED, oldest first. */
  claim(em: EntityManager, limit: number): Promise<Row[]>;
  /** Hands one row to Temporal; resolves once Temporal has acknowledged it. */
  handOff(row: Row, em: EntityManager): Promise<void>;
  /** Marks the acknowledged rows, in the claiming transaction. */
  acknowledge(em: EntityManager, rows: Row[]): Promise<void>;
  /** Notes the failed attempts on their rows (attempts, last error), where the rows keep them. */
  noteFailure?(em: EntityManager, failed: HandOffResult<Row>['failed']): Promise<void>;
  /** What the log says of a row that failed. */
  describe(row: Row): Record<string, unknown>;
};

/** What one pass did: rows claimed, acknowledged, and failed (claimed, neither: left by the back-off). */
export type PendingPass = { claimed: number; acknowledged: number; failed: number };

/**
 * One pass over pending rows, in one transaction of `em`: claim a batch, hand it to Temporal
 * (the first row alone, then the rest at once), mark the acknowledged rows, note the failures,
 * and leave every row not acknowledged for the next pass.
 */
export async function retryUntilAcknowledged<Row>(em: EntityManager, limit: number, rows: PendingRows<Row>, logger: Logger | undefined): Promise<PendingPass> {
  return em.transactional(async (tx) => {
    const claimed = await rows.claim(tx, limit);
    if (claimed.length === 0) return { claimed: 0, acknowledged: 0, failed: 0 };
    const handOff = (row: Row) => rows.handOff(row, tx);
    const first = await handOffAll(claimed.slice(0, 1), handOff);
    const rest = first.failed.length > 0 ? { acknowledged: [], failed: [] } : await handOffAll(claimed.slice(1), handOff);
    const acknowledged = [...first.acknowledged, ...rest.acknowledged];
    const failed = [...first.failed, ...rest.failed];
    if (acknowledged.length > 0) await rows.acknowledge(tx, acknowledged);
    if (failed.length > 0) {
      await rows.noteFailure?.(tx, failed);
      logger?.warn(`${rows.what} not acknowledged; will retry`, {
        failed: failed.length,
        waiting: claimed.length - acknowledged.length,
        ...rows.describe(failed[0].row),
        ...errorFields(failed[0].error),
      });
    }
    return { claimed: claimed.length, acknowledged: acknowledged.length, failed: failed.length };
  });
}
