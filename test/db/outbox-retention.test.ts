import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm.ts';
import { purgeDeliveredEvents } from '../../src/events/outbox.ts';

/**
 * OUTBOX_RETENTION_DAYS: the relay purges delivered events recorded longer ago than that,
 * oldest first, in batches. Undelivered events and those the loop guard stopped (GET /metrics
 * counts them) stay, whatever their age. Each case works in a workspace of its own, since
 * other test files write events to the same database meanwhile.
 */
let orm: MikroORM;
beforeAll(async () => {
  orm = await openOrm({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => orm?.close());

const DAY = 86_400_000;

async function workspaceWithEvents(events: Array<{ name: string; ageDays: number; delivered: boolean; lastError?: string }>): Promise<string> {
  const workspace = crypto.randomUUID();
  const em = orm.em.fork();
  await em.execute(`insert into workspaces (id, name, created_at) values (?, 'retention', now())`, [workspace]);
  for (const e of events) {
    const at = new Date(Date.now() - e.ageDays * DAY);
    await em.execute(
      `insert into outbox_events (id, workspace_id, type, ticket_id, payload, created_at, delivered_at, attempts, last_error)
       values (?, ?, 'ticket_created', null, ?, ?, ?, 1, ?)`,
      [crypto.randomUUID(), workspace, JSON.stringify({ name: e.name }), at, e.delivered ? at : null, e.lastError ?? null],
    );
  }
  return workspace;
}

async function remaining(workspace: string): Promise<string[]> {
  const rows = await orm.em.fork().execute<Array<{ name: string }>>(`select payload->>'name' as name from outbox_events where workspace_id = ? order by name`, [workspace]);
  return rows.map((r) => r.name);
}

describe('purging delivered events past their retention', () => {
  it('deletes delivered events older than the retention and keeps the undelivered, the loop-guarded and the recent ones', async () => {
    const workspace = await workspaceWithEvents([
      { name: 'old delivered', ageDays: 40, delivered: true },
      { name: 'old undelivered', ageDays: 40, delivered: false },
      { name: 'old loop-guarded', ageDays: 40, delivered: true, lastError: 'loop guard: chain depth 5 reached' },
      { name: 'recent delivered', ageDays: 10, delivered: true },
    ]);
    expect(await purgeDeliveredEvents(orm.em.fork(), 30, 100, [workspace])).toBe(1);
    expect(await remaining(workspace)).toEqual(['old loop-guarded', 'old undelivered', 'recent delivered']);

    expect(await purgeDeliveredEvents(orm.em.fork(), 5, 100, [workspace])).toBe(1);
    expect(await remaining(workspace)).toEqual(['old loop-guarded', 'old undelivered']);
  });

  it('deletes at most `limit` per call, oldest first, and only in the workspaces it is given', async () => {
    const workspace = await workspaceWithEvents([
      { name: 'a', ageDays: 50, delivered: true },
      { name: 'b', ageDays: 45, delivered: true },
      { name: 'c', ageDays: 40, delivered: true },
    ]);
    const other = await workspaceWithEvents([{ name: 'other', ageDays: 50, delivered: true }]);
    expect(await purgeDeliveredEvents(orm.em.fork(), 30, 2, [workspace])).toBe(2);
    expect(await remaining(workspace)).toEqual(['c']);
    expect(await purgeDeliveredEvents(orm.em.fork(), 30, 2, [workspace])).toBe(1);
    expect(await remaining(workspace)).toEqual([]);
    expect(await remaining(other)).toEqual(['other']);
    expect(await purgeDeliveredEvents(orm.em.fork(), 30, 2, [])).toBe(0);
  });
});
