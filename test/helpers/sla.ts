// Steps of the service-level tests: policies, a ticket's clocks, the queue, and a relay that
// keeps the clocks for the API tests (which run no Temporal: its engine takes what it is given).
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import { OutboxEvent } from '../../src/events/entity.ts';
import { createLogger } from '../../src/logger.ts';
import type { SlaTimerEngine, TimerUpdate } from '../../src/sla/timers.ts';
import { createOutboxRelay, type OutboxRelay } from '../../src/triggers/relay.ts';
import { expectStatus, type Caller } from './api.ts';
import { useFixture } from './fixture.ts';
import { eventually } from './poll.ts';

/**
 * An engine that takes every start and signal and does nothing with them but note the timers'
 * signals; while `away`, it refuses them as Temporal does when it cannot be reached.
 */
export const idleEngine: WorkflowEngine & SlaTimerEngine & { signalled: TimerUpdate[]; away: boolean } = {
  signalled: [],
  away: false,
  async start() {},
  async cancel() {},
  async signalCustomerReply() {},
  async signalApprovalDecided() {},
  async ping() {},
  async signalSlaClocks(update) {
    if (idleEngine.away) throw new Error('14 UNAVAILABLE: the workflow engine is away');
    idleEngine.signalled.push(update);
  },
};

export type ClockRelay = { relay: OutboxRelay; workspaceIds: Set<string> };

/** The outbox relay of a test file, on its app's database, for the workspaces added to `workspaceIds`. */
export function useClockRelay(app: { orm: MikroORM }): ClockRelay {
  return useFixture(
    async () => {
      const workspaceIds = new Set<string>();
      const relay = createOutboxRelay({ orm: app.orm, engine: idleEngine, logger: createLogger(process.env.DESKFLOW_TEST_LOG === '1' ? 'warn' : 'silent'), databaseUrl: inject('databaseUrl'), pollMs: 100, workspaceIds, outboxRetentionDays: 30 });
      relay.start();
      return { relay, workspaceIds };
    },
    ({ relay }) => relay.stop(),
  );
}

/** Once every outbox event of the workspace has been delivered (what a test waits for before it changes what the relay reads). */
export function eventsDelivered(orm: MikroORM, workspaceId: string): Promise<true> {
  return eventually(async () => ((await orm.em.fork().count(OutboxEvent, { workspace: workspaceId, deliveredAt: null })) === 0 ? true : undefined), 10_000, 'the events delivered');
}

export const HOUR = 3600;

/** Creates a policy; returns it. */
export async function createPolicy(api: Pick<Caller, 'post'>, body: Record<string, unknown>): Promise<any> {
  const res = await api.post('/api/sla-policies', body);
  expectStatus(res, 201);
  return res.body.policy;
}

/** GET /api/v1/tickets/:id/sla's `sla`. */
export async function slaOf(api: Caller, ticketId: string): Promise<any> {
  const res = await api.get(`/api/v1/tickets/${ticketId}/sla`);
  expectStatus(res, 200);
  return res.body.sla;
}

/** The ticket's clocks once `ready` says they are as expected (the relay folds events within a second or so). */
export function slaWhen(api: Caller, ticketId: string, ready: (sla: any) => boolean, what = 'the ticket\'s clocks', timeoutMs = 10_000): Promise<any> {
  return eventually(async () => {
    const sla = await slaOf(api, ticketId);
    return ready(sla) ? sla : undefined;
  }, timeoutMs, what);
}

/** The target of `metric` in a ticket's clocks. */
export const targetOf = (sla: any, metric: string): any => sla?.targets.find((t: { metric: string }) => t.metric === metric);

/** `ms` milliseconds after an ISO instant, as ISO. */
export const after = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
