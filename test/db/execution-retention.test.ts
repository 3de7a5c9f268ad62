import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm.ts';
import { purgeFinishedExecutions } from '../../src/executions/retention.ts';

/**
 * EXECUTION_RETENTION_DAYS: the relay purges executions that finished longer ago than that,
 * with their steps, oldest first, in batches. Pending and running ones stay whatever their
 * age, and a workflow's executionCount and lastTriggeredAt stay lifetime figures. Each case
 * works in a workspace of its own, since other test files write executions meanwhile.
 */
let orm: MikroORM;
beforeAll(async () => {
  orm = await openOrm({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => orm?.close());

const DAY = 86_400_000;

type Run = { name: string; status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled'; finishedDaysAgo?: number; startedDaysAgo: number };

/** A workspace with one workflow whose counters say it ran `runs.length` times, and those executions, each with two steps. */
async function workspaceWithRuns(runs: Run[]): Promise<{ workspace: string; workflow: string }> {
  const workspace = crypto.randomUUID();
  const workflow = crypto.randomUUID();
  const em = orm.em.fork();
  const lastTriggered = new Date(Date.now() - Math.min(...runs.map((r) => r.startedDaysAgo)) * DAY);
  await em.execute(`insert into workspaces (id, name, created_at) values (?, 'retention', now())`, [workspace]);
  await em.execute(
    `insert into workflows (id, workspace_id, name, trigger_type, graph, created_at, updated_at, execution_count, last_triggered_at)
     values (?, ?, 'retention', 'manual', '{"nodes":[],"edges":[]}', now(), now(), ?, ?)`,
    [workflow, workspace, runs.length, lastTriggered],
  );
  for (const run of runs) {
    const id = crypto.randomUUID();
    const started = new Date(Date.now() - run.startedDaysAgo * DAY);
    const finished = run.finishedDaysAgo === undefined ? null : new Date(Date.now() - run.finishedDaysAgo * DAY);
    await em.execute(
      `insert into executions (id, workspace_id, workflow_id, workflow_version, status, triggered_by, context, run_id, started_at, completed_at)
       values (?, ?, ?, 1, ?, 'manual', ?, ?, ?, ?)`,
      [id, workspace, workflow, run.status, JSON.stringify({ data: { name: run.name } }), `workflow-${workflow}/manual-${id}`, started, finished],
    );
    for (const node of ['start', 'act']) {
      await em.execute(`insert into execution_steps (execution_id, node_id, status, started_at) values (?, ?, 'completed', ?)`, [id, node, started]);
    }
  }
  return { workspace, workflow };
}

async function remaining(workspace: string): Promise<string[]> {
  const rows = await orm.em.fork().execute<Array<{ name: string }>>(`select context->'data'->>'name' as name from executions where workspace_id = ? order by name`, [workspace]);
  return rows.map((r) => r.name);
}

async function stepsOf(workspace: string): Promise<number> {
  const [row] = await orm.em.fork().execute<Array<{ n: number }>>(
    `select count(*)::int as n from execution_steps s join executions e on e.id = s.execution_id where e.workspace_id = ?`,
    [workspace],
  );
  const [orphans] = await orm.em.fork().execute<Array<{ n: number }>>(
    `select count(*)::int as n from execution_steps s where not exists (select 1 from executions e where e.id = s.execution_id)`,
  );
  expect(orphans.n).toBe(0);
  return row.n;
}

describe('purging finished executions past their retention', () => {
  it('deletes finished executions older than the retention with their steps, and keeps open and recent ones and the lifetime counters', async () => {
    const { workspace, workflow } = await workspaceWithRuns([
      { name: 'old completed', status: 'completed', startedDaysAgo: 100, finishedDaysAgo: 100 },
      { name: 'old failed', status: 'failed', startedDaysAgo: 95, finishedDaysAgo: 95 },
      { name: 'old cancelled', status: 'cancelled', startedDaysAgo: 120, finishedDaysAgo: 91 },
      { name: 'old pending', status: 'pending', startedDaysAgo: 200 },
      { name: 'old running', status: 'running', startedDaysAgo: 150 },
      { name: 'long run, finished lately', status: 'completed', startedDaysAgo: 120, finishedDaysAgo: 10 },
      { name: 'recent completed', status: 'completed', startedDaysAgo: 1, finishedDaysAgo: 1 },
    ]);
    const before = await orm.em.fork().execute<Array<{ execution_count: number; last_triggered_at: Date }>>(
      'select execution_count, last_triggered_at from workflows where id = ?',
      [workflow],
    );
    expect(await stepsOf(workspace)).toBe(14);

    expect(await purgeFinishedExecutions(orm.em.fork(), 90, 100, [workspace])).toBe(3);
    expect(await remaining(workspace)).toEqual(['long run, finished lately', 'old pending', 'old running', 'recent completed']);
    expect(await stepsOf(workspace)).toBe(8);

    // The workflow list's executionCount and lastTriggeredAt are counters: purging leaves them.
    const after = await orm.em.fork().execute<Array<{ execution_count: number; last_triggered_at: Date }>>(
      'select execution_count, last_triggered_at from workflows where id = ?',
      [workflow],
    );
    expect(after).toEqual(before);
    expect(after[0].execution_count).toBe(7);

    expect(await purgeFinishedExecutions(orm.em.fork(), 5, 100, [workspace])).toBe(1);
    expect(await remaining(workspace)).toEqual(['old pending', 'old running', 'recent completed']);
  });

  it('deletes at most `limit` per call, oldest finished first, and only in the workspaces it is given', async () => {
    const { workspace } = await workspaceWithRuns([
      { name: 'a', status: 'completed', startedDaysAgo: 200, finishedDaysAgo: 99 },
      { name: 'b', status: 'failed', startedDaysAgo: 98, finishedDaysAgo: 98 },
      { name: 'c', status: 'completed', startedDaysAgo: 300, finishedDaysAgo: 97 },
    ]);
    const other = await workspaceWithRuns([{ name: 'other', status: 'completed', startedDaysAgo: 100, finishedDaysAgo: 100 }]);
    expect(await purgeFinishedExecutions(orm.em.fork(), 90, 2, [workspace])).toBe(2);
    expect(await remaining(workspace)).toEqual(['c']);
    expect(await purgeFinishedExecutions(orm.em.fork(), 90, 2, [workspace])).toBe(1);
    expect(await remaining(workspace)).toEqual([]);
    expect(await remaining(other.workspace)).toEqual(['other']);
    expect(await purgeFinishedExecutions(orm.em.fork(), 90, 2, [])).toBe(0);
  });

  it('can read each batch as one range of the partial index, however many rows the table holds', async () => {
    // Whether the planner prefers it depends on the table's size; that it can is what the index is for.
    const plan = await orm.em.fork().transactional(async (em) => {
      await em.execute('set local enable_seqscan = off');
      await em.execute('set local enable_bitmapscan = off');
      return em.execute<Array<{ 'QUERY PLAN': string }>>(
        `explain select id from executions where status in ('completed', 'failed', 'cancelled') and completed_at < now() - make_interval(days => 90) order by completed_at limit 200`,
      );
    });
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/Index (Only )?Scan using executions_finished_idx/);
  });
});
