// docs/contract.md §1, Idempotent writes: a key commits in the same transaction as the write it
// guards, and a run starts only once its execution has committed. A failure injected between
// the write and the key's answer (a database trigger) must leave neither behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import type { RunGraphInput } from '../../src/executions/run-input.ts';
import { client, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, outboxEvents } from '../helpers/expect.ts';
import { createTicket, createWorkflow, newTicket } from '../helpers/api.ts';
import { runnable } from '../helpers/graphs.ts';

/** An engine that only records each start, and whether its execution was committed by then. */
class RecordingEngine implements WorkflowEngine {
  orm: MikroORM | undefined;
  starts: Array<{ executionId: string; committed: boolean }> = [];
  async start(_: string, input: RunGraphInput): Promise<void> {
    // A connection of its own sees only what has committed.
    const rows = await this.orm!.em.fork().execute('select 1 from executions where id = ?', [input.executionId]);
    this.starts.push({ executionId: input.executionId, committed: rows.length === 1 });
  }
  async cancel(): Promise<void> {}
  async signalCustomerReply(): Promise<void> {}
  async signalApprovalDecided(): Promise<void> {}
  async ping(): Promise<void> {}
}

const engine = new RecordingEngine();
const app = useTestApp({ engine });
const { ws } = useWorkspace(app);
const trigger = `fail_idempotency_${process.pid}_${Date.now().toString(36)}`;
beforeAll(async () => {
  engine.orm = app.orm;
  await app.orm.em.fork().execute(`create function "${trigger}"() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`);
});
afterAll(async () => {
  await app.orm.em.fork().execute(`drop function if exists "${trigger}"() cascade`);
});

/** From now on, storing an answer under a key of this workspace fails, after the write. */
const failStoringAnswers = (on: boolean) =>
  app.orm.em
    .fork()
    .execute(
      on
        ? `create trigger "${trigger}" before update on idempotency_keys for each row when (new.workspace_id = '${ws.workspaceId}') execute function "${trigger}"()`
        : `drop trigger "${trigger}" on idempotency_keys`,
    );

const count = async (sql: string, params: unknown[]) => Number((await app.orm.em.fork().execute<Array<{ n: string }>>(sql, params))[0].n);
const post = (path: string, body: unknown, key: string) => client(app.baseUrl, ws.key).post(path, body, { 'idempotency-key': key });

describe('a write and its key', () => {
  it('commit together: when storing the answer fails, the ticket, its event and the key are all gone, and a retry writes once', async () => {
    const before = { tickets: await count('select count(*) as n from tickets where workspace_id = ?', [ws.workspaceId]), events: (await outboxEvents(app.orm, { workspace: ws.workspaceId })).length };
    await failStoringAnswers(true);
    try {
      expectError(await post('/api/v1/tickets', newTicket({ subject: 'Atomic' }), 'atomic-ticket'), 500, 'internal_error');
    } finally {
      await failStoringAnswers(false);
    }
    expect(await count(`select count(*) as n from tickets where workspace_id = ? and subject = 'Atomic'`, [ws.workspaceId])).toBe(0);
    expect((await outboxEvents(app.orm, { workspace: ws.workspaceId })).length).toBe(before.events);
    expect(await count('select count(*) as n from idempotency_keys where workspace_id = ?', [ws.workspaceId])).toBe(0);

    expect((await post('/api/v1/tickets', newTicket({ subject: 'Atomic' }), 'atomic-ticket')).status).toBe(201);
    expect((await post('/api/v1/tickets', newTicket({ subject: 'Atomic' }), 'atomic-ticket')).status).toBe(201);
    expect(await count('select count(*) as n from tickets where workspace_id = ?', [ws.workspaceId])).toBe(before.tickets + 1);
  });

  it('commit together for a message too', async () => {
    const ticket = await createTicket(client(app.baseUrl, ws.key));
    await failStoringAnswers(true);
    try {
      expectError(await post(`/api/v1/tickets/${ticket.id}/messages`, { body: 'Hi', senderEmail: 'customer@example.com' }, 'atomic-message'), 500, 'internal_error');
    } finally {
      await failStoringAnswers(false);
    }
    expect(await count('select count(*) as n from messages where ticket_id = ?', [ticket.id])).toBe(1);
    expect((await outboxEvents(app.orm, { ticketId: ticket.id })).map((e) => e.type)).toEqual(['ticket_created']);
  });
});

describe('a keyed trigger', () => {
  it('starts its run once, after the execution has committed', async () => {
    const workflow = await createWorkflow(client(app.baseUrl, ws.key), runnable());
    const path = `/api/workflows/${workflow.id}/trigger`;
    const first = await post(path, {}, 'atomic-run');
    expect(first.status).toBe(202);
    expect((await post(path, {}, 'atomic-run')).headers.get('idempotency-replayed')).toBe('true');
    expect(engine.starts.filter((s) => s.executionId === first.body.execution.id)).toEqual([{ executionId: first.body.execution.id, committed: true }]);
    expect(engine.starts.filter((s) => !s.committed)).toEqual([]);
  });

  it('starts nothing when the transaction rolls back, and leaves no execution', async () => {
    const workflow = await createWorkflow(client(app.baseUrl, ws.key), runnable());
    const starts = engine.starts.length;
    await failStoringAnswers(true);
    try {
      expectError(await post(`/api/workflows/${workflow.id}/trigger`, {}, 'atomic-rollback'), 500, 'internal_error');
    } finally {
      await failStoringAnswers(false);
    }
    expect(engine.starts.length).toBe(starts);
    expect(await count('select count(*) as n from executions where workflow_id = ?', [workflow.id])).toBe(0);
    expect((await post(`/api/workflows/${workflow.id}/trigger`, {}, 'atomic-rollback')).status).toBe(202);
    expect(engine.starts.length).toBe(starts + 1);
  });
});
