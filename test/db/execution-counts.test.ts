import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * execution_counts (the source of GET /metrics' deskflow_executions) agrees with the executions
 * table after inserts, status changes and deletes, direct or by cascade, read in one snapshot
 * (other test files write executions meanwhile).
 */
let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('databaseUrl') });
  await db.connect();
});
afterAll(() => db?.end());

async function snapshot(): Promise<{ counted: Record<string, number>; kept: Record<string, number> }> {
  await db.query('begin isolation level repeatable read read only');
  try {
    const counted = await db.query<{ status: string; n: string }>('select status, count(*) as n from executions group by status');
    const kept = await db.query<{ status: string; n: string }>('select status, sum(count) as n from execution_counts group by status');
    const toMap = (rows: Array<{ status: string; n: string }>) => Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [r.status, Number(r.n)]));
    return { counted: toMap(counted.rows), kept: toMap(kept.rows) };
  } finally {
    await db.query('commit');
  }
}

describe('execution_counts', () => {
  it('follows every insert, status change and delete', async () => {
    const workspace = crypto.randomUUID();
    const workflow = crypto.randomUUID();
    await db.query(`insert into workspaces (id, name, created_at) values ($1, 'counts', now())`, [workspace]);
    await db.query(`insert into workflows (id, workspace_id, name, trigger_type, graph, created_at, updated_at) values ($1, $2, 'w', 'manual', '{}', now(), now())`, [workflow, workspace]);
    const ids = Array.from({ length: 6 }, () => crypto.randomUUID());
    await db.query(
      `insert into executions (id, workspace_id, workflow_id, workflow_version, status, triggered_by, context, run_id, started_at)
       select id, $2, $3, 1, 'pending', 'manual', '{}', 'run-' || id, now() from unnest($1::uuid[]) as id`,
      [ids, workspace, workflow],
    );
    await db.query(`update executions set status = 'running' where id = any($1)`, [ids.slice(0, 4)]);
    await db.query(`update executions set status = 'completed' where id = any($1)`, [ids.slice(0, 2)]);
    await db.query(`update executions set status = 'failed' where id = $1`, [ids[2]]);
    // A change that leaves the status alone counts nothing.
    await db.query(`update executions set error = 'x' where id = any($1)`, [ids]);
    let { counted, kept } = await snapshot();
    expect(kept).toEqual(counted);

    await db.query(`delete from executions where id = $1`, [ids[5]]);
    ({ counted, kept } = await snapshot());
    expect(kept).toEqual(counted);

    await db.query(`delete from workspaces where id = $1`, [workspace]);
    ({ counted, kept } = await snapshot());
    expect(kept).toEqual(counted);
  });
});
