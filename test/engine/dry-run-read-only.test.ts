// A dry run and a backtest change nothing anywhere: on a database and a Temporal server of this
// file's own (so that no other test file's work moves the numbers), every table keeps its rows
// and contents, the Temporal server its workflow count, and the outside world gets no request,
// while a relay and a worker stand ready to act on anything that was written.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../src/db/embedded-postgres.ts';
import { migrate, openOrm } from '../../src/db/orm.ts';
import { sleep } from '../helpers/expect.ts';
import { engineWorkspace, settled, useEngineApp } from '../helpers/engine.ts';
import { startOwnTemporal, type OwnTemporal } from '../helpers/own-temporal.ts';
import type { Client } from '../helpers/app.ts';
import { activeWorkflow, createTicket, expectStatus } from '../helpers/api.ts';
import { actionNode, conditionNode, edge, triggerNode } from '../helpers/graphs.ts';

let temporal: OwnTemporal;
let api: Client;
let workspaceId: string;
let databaseUrl: string;
let serverUrl: string;
let database: string;
let hook: http.Server;
let hookUrl: string;
let requestsReceived = 0;

beforeAll(async () => {
  const shared = new URL(inject('databaseUrl'));
  database = `${shared.pathname.slice(1)}_dry_run`;
  serverUrl = new URL('/postgres', shared).toString();
  await ensureDatabase(serverUrl, database);
  databaseUrl = new URL(`/${database}`, shared).toString();
  const orm = await openOrm({ databaseUrl });
  await migrate(orm);
  await orm.close();

  hook = http.createServer((req, res) => {
    requestsReceived += 1;
    res.end('ok');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;

  temporal = await startOwnTemporal();
}, 180_000);

// Registered before the app's own: runs after the app has closed.
afterAll(async () => {
  await temporal?.destroy();
  await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`drop database if exists "${database}" with (force)`).finally(() => client.end());
});

const app = useEngineApp(() => ({ databaseUrl, temporalAddress: temporal.address, httpAllow: ['127.0.0.1'] }));
beforeAll(async () => {
  const engineWs = await engineWorkspace(app, [{ userId: 'agent-1' }]);
  api = engineWs.api;
  workspaceId = engineWs.ws.workspaceId;
});

/** Every table of the database with its row count and a digest of its contents. */
async function tables(): Promise<Record<string, { rows: number; digest: string }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const names = (await client.query(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)).rows.map((r) => r.table_name as string);
    const result: Record<string, { rows: number; digest: string }> = {};
    for (const name of names) {
      const { rows } = await client.query(`select count(*)::int as rows, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${name}" t`);
      result[name] = rows[0];
    }
    return result;
  } finally {
    await client.end();
  }
}

const temporalWorkflows = async () => (await app.engine.client.workflow.count()).count;

/** On every new ticket: tag, close and reply, call out, then wait for the customer. */
const everything = () => ({
  nodes: [
    triggerNode('ticket_created', 'created'),
    conditionNode('any', { field: 'ticket.subject', operator: 'is_not_empty' }),
    actionNode('tag', { actionType: 'add_tag', tag: 'seen' }),
    actionNode('assign', { actionType: 'assign_ticket', assignTo: 'agent-1' }),
    actionNode('reply', { actionType: 'send_reply', body: 'Hello {{ticket.customerName}}' }),
    actionNode('call', { actionType: 'http_request', method: 'POST', url: `${hookUrl}/tickets/{{ticket.id}}`, body: { id: '{{ticket.id}}' } }),
    actionNode('pause', { actionType: 'delay', seconds: 3600 }),
    actionNode('wait', { actionType: 'wait_for_reply', timeoutSeconds: 3600 }),
    actionNode('close', { actionType: 'set_status', status: 'closed' }),
  ],
  edges: [
    edge('created', 'any'),
    edge('any', 'tag', 'true'),
    edge('tag', 'assign'),
    edge('assign', 'reply'),
    edge('reply', 'call'),
    edge('call', 'pause'),
    edge('pause', 'wait'),
    edge('wait', 'close', 'false'),
  ],
});

describe('dry run and backtest are read-only', () => {
  it('leave every table, the Temporal server and the outside world as they were', async () => {
    // A real run first, so that there are recorded events, executions and Temporal runs to count.
    const seen = await activeWorkflow(api, 'ticket_created', [edge('created', 'tag')], [triggerNode('ticket_created', 'created'), actionNode('tag', { actionType: 'add_tag', tag: 'first' })]);
    const ticket = await createTicket(api, { subject: 'Printer on fire', customerName: 'Dana' });
    await settled(app, workspaceId);
    const workflow = (await api.patch(`/api/workflows/${seen}`, { workflowJson: everything() })).body.workflow;
    expect(workflow.version).toBe(2);

    const tablesBefore = await tables();
    const runsBefore = await temporalWorkflows();
    expect(runsBefore).toBeGreaterThan(0);
    expect(tablesBefore.outbox_events.rows).toBeGreaterThan(0);

    const dryRun = await api.post(`/api/workflows/${seen}/dry-run`, { ticketId: ticket.id });
    expectStatus(dryRun, 200);
    expect(dryRun.body.dryRun.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['created', 'any', 'tag', 'assign', 'reply', 'call', 'pause', 'wait', 'close']);
    expect(dryRun.body.dryRun.outbound.map((o: { type: string }) => o.type)).toEqual(['send_reply', 'http_request']);
    expectStatus(await api.post(`/api/workflows/${seen}/dry-run`, { ticketId: ticket.id, assumeReply: true }), 200);
    expectStatus(await api.post('/api/workflows/dry-run', { triggerType: 'ticket_created', workflowJson: everything(), ticketId: ticket.id }), 200);
    const backtest = await api.post(`/api/workflows/${seen}/backtest`, {});
    expectStatus(backtest, 200);
    expect(backtest.body.backtest).toMatchObject({ eventsExamined: 1, matched: 1, actionsWouldRun: { add_tag: 1, assign_ticket: 1, send_reply: 1, http_request: 1, delay: 1, wait_for_reply: 1, set_status: 1 } });

    // Anything written would wake the relay at once (an insert notifies it) and it polls every 200 ms.
    await sleep(1_000);
    expect(await tables()).toEqual(tablesBefore);
    expect(await temporalWorkflows()).toBe(runsBefore);
    expect(requestsReceived).toBe(0);
  });
});
