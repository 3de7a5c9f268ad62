import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../temporal/dev-server.ts';
import { client } from '../helpers/app.ts';
import { freePort } from '../helpers/ports.ts';
import {
  activeWorkflow,
  engineWorkspace,
  eventually,
  finishedExecutions,
  listExecutions,
  readTicket,
  settled,
  startEngineApp,
  type EngineApp,
} from '../helpers/engine.ts';
import { newTicket } from '../helpers/app.ts';

// CONTRACT §6: a write acknowledged to the client gets its workflows started exactly once,
// even if the engine was down at the time. This file runs a Temporal dev server of its own
// (state in a file, so it survives the restart) and stops it in the middle.

let dir: string;
let port: number;
let dbFile: string;
let server: DevServer | null = null;
let app: EngineApp;

const startServer = async () => {
  server = await startDevServer({ port, uiPort: null, dbFile, cliPath: process.env.TEMPORAL_CLI_PATH });
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-outage-'));
  dbFile = path.join(dir, 'temporal.sqlite');
  port = await freePort();
  await startServer();
  app = await startEngineApp({ temporalAddress: server!.address });
});
afterAll(async () => {
  await app?.close();
  await server?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Fails instead of hanging when the API does not answer within `ms`. */
async function within<T>(ms: number, what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the workflow engine down for a while', () => {
  it('tickets created meanwhile are accepted and each gets exactly one completed execution once it is back', async () => {
    const { ws, api } = await engineWorkspace(app);
    const workflowId = await activeWorkflow(
      api,
      'ticket_created',
      [
        { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
        { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'seen' } },
      ],
      [{ source: 'start', target: 'tag' }],
    );
    const before = (await api.post('/api/v1/tickets', newTicket({ subject: 'Before the outage' }))).body.data.id;
    await finishedExecutions(api, workflowId, 1);

    await server!.stop();
    server = null;
    const ready = await client(app.baseUrl).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.map((d: { path: string }) => d.path)).toEqual(['temporal']);

    const failuresBefore = app.relay.metrics.dispatchFailures;
    const during: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await within(5_000, `create ticket ${i}`, api.post('/api/v1/tickets', newTicket({ subject: `During the outage #${i}` })));
      expect(res.status).toBe(201);
      during.push(res.body.data.id);
    }
    // The relay delivers the events, cannot start the runs, and keeps the executions pending.
    const waiting = await eventually(async () => {
      const listed = (await listExecutions(api, workflowId)).filter((e) => during.includes(e.ticketId!));
      return listed.length === during.length ? listed : undefined;
    }, 60_000, 'an execution per ticket created during the outage');
    expect(waiting.map((e) => e.status)).toEqual(['pending', 'pending', 'pending']);
    expect(app.relay.metrics.dispatchFailures).toBeGreaterThan(failuresBefore);

    await startServer();
    const executions = await finishedExecutions(api, workflowId, 4, 45_000);
    await settled(app, ws.workspaceId, 30_000);
    const all = await listExecutions(api, workflowId);
    expect(all).toHaveLength(4);
    expect(all.map((e) => e.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(executions.map((e: { ticketId: string }) => e.ticketId).sort()).toEqual([before, ...during].sort());
    for (const ticketId of during) expect((await readTicket(api, ticketId)).tags).toEqual(['seen']);
    expect((await client(app.baseUrl).get('/readyz')).status).toBe(200);
  }, 120_000);
});
