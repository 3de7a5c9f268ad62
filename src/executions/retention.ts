import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';

/**
 * EXECUTION_RETENTION_DAYS: executions that finished (completed, failed, cancelled) longer ago
 * than that are deleted with their steps and recorded replies (foreign keys cascade), oldest
 * first, at most `limit` per call; returns how many. Each call is one short statement through
 * the partial index executions_finished_idx, so it locks only the rows it deletes, and only
 * for as long as that one batch takes. Pending and running executions stay, whatever their age.
 * A workflow's executionCount and lastTriggeredAt are counters on the workflow row, not counts
 * of these rows: they stay lifetime figures.
 */
export async function purgeFinishedExecutions(em: EntityManager, retentionDays: number, limit: number, workspaceIds?: string[]): Promise<number> {
  if (workspaceIds?.length === 0) return 0;
  const rows = await sql<{ purged: string }>(
    em,
    `with purged as (
       delete from "executions" where "id" = any(array(
         select "id" from "executions"
          where "status" in ('completed', 'failed', 'cancelled') and "completed_at" < now() - make_interval(days => $1)
            ${workspaceIds ? 'and "workspace_id" = any($3)' : ''}
          order by "completed_at" limit $2))
       returning 1)
     select count(*) as purged from purged`,
    workspaceIds ? [retentionDays, limit, workspaceIds] : [retentionDays, limit],
  );
  return Number(rows[0]?.purged ?? 0);
}
