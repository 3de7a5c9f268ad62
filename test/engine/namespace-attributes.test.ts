import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm.ts';
import { startDevServer } from '../../temporal/dev-server.ts';
import { SEARCH_ATTRIBUTES, WORKFLOW_NAME } from '../../temporal/search-attributes.ts';
import { client, createWorkspace, type Client } from '../helpers/app.ts';
import { useTemporalConnection } from '../helpers/engine.ts';
import { freePort } from '../helpers/ports.ts';
import { ownDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { runNode } from '../cli/run-cli.ts';
import { activeWorkflow, newTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { actionNode } from '../helpers/graphs.ts';

/**
 * An upgrade onto a Temporal namespace that an older Deskflow set up, without the search
 * attribute DeskflowWorkflowName that every run now carries: Temporal refuses to start such a
 * run. Deskflow, as `npm start` runs it, either adds the attribute where it may (the dev server
 * it runs itself; TEMPORAL_SETUP_ON_START=true) and runs the automation, or says what is
 * missing and how to add it, in its log once and on /readyz, and runs it once it is added.
 * Nothing sits pending without a word.
 */
const connection = useTemporalConnection();
let database: { url: string; drop: () => Promise<void> };
let orm: MikroORM;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  // A whole Deskflow's relay delivers every workspace's events: a database of this file's own.
  database = await ownDatabase('namespace_attributes');
  orm = await openOrm({ databaseUrl: database.url, poolMax: 2 });
}, 120_000);
afterAll(async () => {
  for (const server of servers) await server.stop();
  await orm?.close();
  await database?.drop();
});

/** A namespace as the previous release's `temporal:setup` left it: every attribute but DeskflowWorkflowName. */
async function olderNamespace(): Promise<string> {
  const namespace = `older-${randomUUID().slice(0, 8)}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const older = SEARCH_ATTRIBUTES.filter((key) => key.name !== WORKFLOW_NAME.name);
  await eventually(async () => {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(older.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!])),
      });
      return true;
    } catch {
      return undefined; // the namespace is not known everywhere yet
    }
  }, 30_000, `the attributes of ${namespace}`);
  return namespace;
}

async function startDeskflow(env: Record<string, string | undefined>): Promise<{ server: ServerProcess; baseUrl: string }> {
  const port = await freePort();
  const server = startServerProcess({ DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', TEMPORAL_TASK_QUEUE: `attrs-${randomUUID().slice(0, 8)}`, ...env });
  servers.push(server);
  await server.waitFor(/Deskflow API listening/, 90_000);
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

/** A workspace with an active automation that tags every new ticket, and a new ticket. */
async function automationOnNewTicket(baseUrl: string, name: string): Promise<{ api: Client; workflowId: string }> {
  const ws = await createWorkspace(orm);
  const api = client(baseUrl, ws.key);
  const workflowId = await activeWorkflow(api, 'ticket_created', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'seen' })], name);
  expect((await api.post('/api/v1/tickets', newTicket({ subject: 'Printer on fire' }))).status).toBe(201);
  return { api, workflowId };
}

const executionStatus = async (api: Client, workflowId: string) => (await api.get(`/api/workflows/${workflowId}/executions`)).body.executions[0]?.status;

const completed = (api: Client, workflowId: string, timeoutMs: number) =>
  eventually(async () => ((await executionStatus(api, workflowId)) === 'completed' ? true : undefined), timeoutMs, 'the automation completed');

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

describe('a namespace without DeskflowWorkflowName', () => {
  it('on a cluster where Deskflow may not change it: the log says once what is missing and how to add it, /readyz answers 503 naming it, and the run waits, then runs once it is added', async () => {
    const namespace = await olderNamespace();
    const address = inject('temporalAddress');
    const { server, baseUrl } = await startDeskflow({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace });
    await server.waitFor(/Temporal namespace \\"older-[0-9a-f]+\\" lacks the search attribute DeskflowWorkflowName/, 30_000);

    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { error: { code: string; details: unknown } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.details).toEqual([
      {
        path: 'temporal.searchAttributes.DeskflowWorkflowName',
        message: `search attribute DeskflowWorkflowName (Keyword) is missing on namespace ${namespace}; add it with: TEMPORAL_ADDRESS=${address} TEMPORAL_NAMESPACE=${namespace} npm run temporal:setup (or: temporal operator search-attribute create --namespace ${namespace} --name DeskflowWorkflowName --type Keyword)`,
      },
    ]);

    const { api, workflowId } = await automationOnNewTicket(baseUrl, 'Tag new tickets');
    await eventually(async () => ((await executionStatus(api, workflowId)) === 'pending' ? true : undefined), 20_000, 'the pending execution');
    // A few relay passes later: still pending, and no line per pass.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await executionStatus(api, workflowId)).toBe('pending');
    const output = server.output();
    expect(count(output, /lacks the search attribute DeskflowWorkflowName/)).toBe(1);
    expect(output).not.toContain('starting pending executions failed');
    const line = JSON.parse(output.split('\n').find((l) => l.includes('lacks the search attribute'))!);
    expect(line).toMatchObject({ level: 'error', namespace, missingSearchAttributes: ['DeskflowWorkflowName'] });
    expect(line.fix).toContain(`TEMPORAL_ADDRESS=${address} TEMPORAL_NAMESPACE=${namespace} npm run temporal:setup`);
    expect(line.fix).toContain(`temporal operator search-attribute create --address ${address} --namespace ${namespace} --name DeskflowWorkflowName --type Keyword`);

    // The operator runs the command the log gave.
    const setup = await runNode('src/cli/temporal-setup.ts', [], { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }, 90_000);
    expect(setup.stdout, setup.stderr).toBe('Added search attributes DeskflowWorkflowName.\n');
    await server.waitFor(/has Deskflow's search attributes now; pending automations start/, 30_000);
    await completed(api, workflowId, 30_000);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    await server.stop();
  }, 240_000);

  it('with TEMPORAL_SETUP_ON_START=true: Deskflow adds it at start and the run completes', async () => {
    const namespace = await olderNamespace();
    const { server, baseUrl } = await startDeskflow({ TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: namespace, TEMPORAL_SETUP_ON_START: 'true' });
    await server.waitFor(/"msg":"added search attributes to Temporal namespace \\"older-[0-9a-f]+\\"","namespace":"older-[0-9a-f]+","added":\["DeskflowWorkflowName"\]/, 30_000);
    const { api, workflowId } = await automationOnNewTicket(baseUrl, 'Tag new tickets');
    await completed(api, workflowId, 30_000);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    expect(server.output()).not.toContain('lacks the search attribute');
    await server.stop();
  }, 240_000);

  it("on npm start's own dev server whose state an older Deskflow created: Deskflow adds it at start and the run completes", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-older-'));
    try {
      // The older release's dev server: its namespace kept in the data directory's SQLite file without the attribute.
      const devPort = await freePort();
      const dbFile = path.join(dataDir, 'temporal.sqlite');
      const older = await startDevServer({ port: devPort, uiPort: null, dbFile, cliPath: process.env.TEMPORAL_CLI_PATH });
      const olderConnection = await Connection.connect({ address: older.address });
      await olderConnection.operatorService.removeSearchAttributes({ namespace: 'default', searchAttributes: [WORKFLOW_NAME.name] });
      await olderConnection.close();
      await older.stop();

      const { server, baseUrl } = await startDeskflow({ TEMPORAL_ADDRESS: undefined, DESKFLOW_DATA_DIR: dataDir, TEMPORAL_DEV_PORT: String(devPort), TEMPORAL_UI_PORT: String(await freePort()) });
      await server.waitFor(/"msg":"added search attributes to Temporal namespace \\"default\\"","namespace":"default","added":\["DeskflowWorkflowName"\]/, 30_000);
      const { api, workflowId } = await automationOnNewTicket(baseUrl, 'Tag new tickets');
      await completed(api, workflowId, 30_000);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      await server.stop();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
