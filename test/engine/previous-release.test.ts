import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { client, createWorkspace, type Client } from '../helpers/app.ts';
import { useEngineApp } from '../helpers/engine.ts';
import { freePort } from '../helpers/ports.ts';
import { ownDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { repoRoot } from '../cli/run-cli.ts';
import { newTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { actionNode, raiseToUrgent, triggerNode } from '../helpers/graphs.ts';

/**
 * docs/operations.md, "Upgrading Deskflow": migrations first, then the processes in any order. Midway, the
 * previous release's API runs on this release's schema beside this release's relay and worker.
 * Here it does: the previous release's code (from git) serves the API on a database migrated by
 * this release, its writes start automations that this release's worker runs, and it reads
 * what this release wrote. test/db/migrations-expand-only.test.ts holds every migration to
 * adding only; this test runs the older queries themselves.
 *
 * PREVIOUS_RELEASE is the commit of the release before this one's migrations: move it forward
 * when a release ships.
 */
const PREVIOUS_RELEASE = 'eb8a9b9da05aefd29943fafcb464e0ddba0b4e78';

let database: { url: string; drop: () => Promise<void> };
let previous: string;
let older: ServerProcess | undefined;

beforeAll(async () => {
  database = await ownDatabase('previous_release');
  previous = fs.mkdtempSync(path.join(os.tmpdir(), 'deskflow-previous-'));
  const archive = path.join(previous, 'release.tar');
  try {
    execFileSync('git', ['-C', repoRoot, 'archive', '--format=tar', '-o', archive, PREVIOUS_RELEASE], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`The previous release (${PREVIOUS_RELEASE}) is not in this checkout's git history: ${(err as { stderr?: Buffer }).stderr?.toString().trim()}. Fetch the full history (git fetch --unshallow).`);
  }
  execFileSync('tar', ['-xf', archive, '-C', previous]);
  fs.rmSync(archive);
  // Its dependencies are this release's (package.json has not changed them since).
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(previous, 'node_modules'));
}, 120_000);

// Registered before the app's own: runs after the app has closed.
afterAll(async () => {
  await older?.stop();
  if (previous) fs.rmSync(previous, { recursive: true, force: true });
  await database?.drop();
});

const app = useEngineApp(() => ({ databaseUrl: database.url }));

describe("the previous release's API on this release's schema", () => {
  it('starts, writes, triggers automations that this release runs, and reads what this release wrote', async () => {
    const ws = await createWorkspace(app.orm);
    app.workspaceIds.add(ws.workspaceId);
    const port = await freePort();
    older = startServerProcess(
      { DATABASE_URL: database.url, TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: app.taskQueue, PORT: String(port), HOST: '127.0.0.1' },
      'api',
      previous,
    );
    await older.waitFor(/Deskflow API listening/, 90_000);
    // It applied no migration of its own, and knows none is missing.
    expect(older.output()).not.toContain('migrations applied');
    const old: Client = client(`http://127.0.0.1:${port}`, ws.key);
    const current: Client = client(app.baseUrl, ws.key);

    // An automation made through the old API runs on this release's relay and worker.
    const created = await old.post('/api/workflows', {
      name: 'Tag new tickets',
      triggerType: 'ticket_created',
      workflowJson: { nodes: [triggerNode('ticket_created', 'start'), actionNode('tag', { actionType: 'add_tag', tag: 'seen' })], edges: [{ source: 'start', target: 'tag' }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.workflow.id;
    expect((await old.patch(`/api/workflows/${workflowId}`, { isActive: true })).status).toBe(200);
    const ticket = await old.post('/api/v1/tickets', newTicket({ subject: 'Written by the previous release' }));
    expect(ticket.status).toBe(201);
    const tags = await eventually(async () => {
      const res = await old.get(`/api/v1/tickets/${ticket.body.data.id}`);
      return res.body.data.tags.length > 0 ? res.body.data.tags : undefined;
    }, 30_000, 'the automation ran');
    expect(tags).toEqual(['seen']);

    // A run the old API starts itself (its own run id) is run by this release's worker.
    const manual = await old.post('/api/workflows', {
      name: 'Escalate by hand',
      triggerType: 'manual',
      workflowJson: { nodes: [triggerNode('manual', 'start'), raiseToUrgent()], edges: [{ source: 'start', target: 'raise' }] },
    });
    const triggered = await old.post(`/api/workflows/${manual.body.workflow.id}/trigger`, { ticketId: ticket.body.data.id });
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
    await eventually(async () => ((await old.get(`/api/v1/tickets/${ticket.body.data.id}`)).body.data.priority === 'urgent' ? true : undefined), 30_000, 'the manual run');

    // Each reads the other's writes: tickets, executions with their steps.
    const mine = await current.post('/api/v1/tickets', newTicket({ subject: 'Written by this release' }));
    const listed = await old.get('/api/v1/tickets');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { subject: string }) => t.subject).sort()).toEqual(['Written by the previous release', 'Written by this release']);
    const executions = await eventually(async () => {
      const res = await old.get(`/api/workflows/${workflowId}/executions`);
      return res.body.executions?.length === 2 && res.body.executions.every((e: { status: string }) => e.status === 'completed') ? res.body.executions : undefined;
    }, 30_000, 'both executions completed, as the old API lists them');
    expect(executions.map((e: { ticketId: string }) => e.ticketId).sort()).toEqual([ticket.body.data.id, mine.body.data.id].sort());
    expect((await current.get(`/api/workflows/${manual.body.workflow.id}/executions`)).body.executions[0]).toMatchObject({ status: 'completed', triggeredBy: 'manual' });
    expect(older.output()).not.toMatch(/"level":"error"/);
  }, 240_000);
});
