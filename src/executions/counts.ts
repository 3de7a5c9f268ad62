import { defineEntity, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { EXECUTION_STATUSES, type ExecutionStatus } from './entity.ts';

/**
 * How many executions there are per status across all workspaces, kept by triggers on
 * `executions` in the same transaction as every insert, status change and delete (see the
 * execution_counts migration), in shards so that concurrent writers do not queue on one row.
 * GET /metrics sums them instead of counting the table.
 */
const ExecutionCountSchema = defineEntity({
  name: 'ExecutionCount',
  tableName: 'execution_counts',
  properties: {
    status: p.enum(EXECUTION_STATUSES).primary(),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});
export class ExecutionCount extends ExecutionCountSchema.class {}
ExecutionCountSchema.setClass(ExecutionCount);

/** Executions by status, every status present (0 when none). */
export async function countExecutionsByStatus(em: EntityManager): Promise<Record<ExecutionStatus, number>> {
  const rows = await sql<{ status: ExecutionStatus; total: string }>(em, `select "status", sum("count") as "total" from "execution_counts" group by "status"`, []);
  const counts = Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, 0])) as Record<ExecutionStatus, number>;
  for (const row of rows) counts[row.status] = Number(row.total);
  return counts;
}
