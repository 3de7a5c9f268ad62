import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { TriggerType } from '../graph/index.ts';
import type { Logger } from '../logger.ts';
import { Execution } from '../executions/entity.ts';
import { ExecutionService } from '../executions/service.ts';
import type { WorkflowEngine } from '../executions/run-input.ts';
import { Workflow } from '../workflows/entity.ts';
import { OutboxEvent } from './entity.ts';
import type { EventCause } from './outbox.ts';

/** CONTRACT §5: a chain of automations stops at this depth. */
export const MAX_CHAIN_DEPTH = 5;

export type RelayEngine = WorkflowEngine & { signalCustomerReply(runId: string, messageId: string): Promise<void> };

export type RelayMetrics = {
  eventsDelivered: number;
  executionsCreated: number;
  loopGuardSkips: number;
  depthLimitStops: number;
  dispatchFailures: number;
};

/**
 * Delivers outbox events to the workflow engine (CONTRACT §6). In one transaction it claims a
 * batch of undelivered events (FOR UPDATE SKIP LOCKED, so several relays share the work),
 * creates one pending execution per matching active workflow and marks the events delivered;
 * after the commit it starts the runs. Runs that could not be started (engine down) stay
 * pending and are started on a later pass, each exactly once: their run ids are fixed.
 */
export class OutboxRelay {
  readonly metrics: RelayMetrics = { eventsDelivered: 0, executionsCreated: 0, loopGuardSkips: 0, depthLimitStops: 0, dispatchFailures: 0 };
  private readonly orm: MikroORM;
  private readonly engine: RelayEngine;
  private readonly logger: Logger;
  private readonly databaseUrl: string;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly workspaceIds: ReadonlySet<string> | undefined;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private listener: pg.Client | null = null;

  constructor(deps: {
    orm: MikroORM;
    engine: RelayEngine;
    logger: Logger;
    databaseUrl: string;
    batchSize?: number;
    pollMs?: number;
    /**
     * Deliver only the events (and start only the runs) of these workspaces; read on every
     * pass. For relays that each bring an engine of their own to one shared database (the
     * engine tests: a task queue per test file). Omitted: every workspace.
     */
    workspaceIds?: ReadonlySet<string>;
  }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
    this.databaseUrl = deps.databaseUrl;
    this.batchSize = deps.batchSize ?? 100;
    this.pollMs = deps.pollMs ?? 1_000;
    this.workspaceIds = deps.workspaceIds;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => {});
    this.listener = null;
  }

  /** One pass: deliver every waiting event (batch by batch) and retry runs not yet started. */
  async deliverPending(): Promise<void> {
    for (;;) {
      const claimed = await this.deliverBatch();
      if (claimed < this.batchSize) break;
    }
    const executions = new ExecutionService(this.orm.em.fork(), this.engine, this.logger);
    await executions.dispatchPending(this.batchSize, this.scope()).catch((err) => {
      this.metrics.dispatchFailures += 1;
      this.logger.warn('starting pending executions failed; will retry', { error: String(err) });
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.deliverPending();
      } catch (err) {
        this.logger.warn('outbox relay pass failed; will retry', { error: String(err) });
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** LISTEN for commits of new events, so delivery does not wait for the next poll. */
  private async listen(): Promise<void> {
    while (this.running && !this.listener) {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      try {
        client.on('error', () => {
          this.listener = null;
          void client.end().catch(() => {});
          if (this.running) setTimeout(() => void this.listen(), 1_000);
        });
        client.on('notification', () => this.wake?.());
        await client.connect();
        await client.query('listen deskflow_outbox');
        this.listener = client;
      } catch {
        await client.end().catch(() => {});
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  /** The workspaces this relay serves, or undefined for all. */
  private scope(): string[] | undefined {
    return this.workspaceIds ? [...this.workspaceIds] : undefined;
  }

  private async deliverBatch(): Promise<number> {
    const signals: Array<{ runId: string; messageId: string }> = [];
    const scope = this.scope();
    if (scope?.length === 0) return 0;
    const { claimed, created } = await this.orm.em.fork().transactional(async (em) => {
      const events = await em.find(OutboxEvent, { deliveredAt: null, ...(scope ? { workspace: { $in: scope } } : {}) }, {
        orderBy: { createdAt: 'asc', id: 'asc' },
        limit: this.batchSize,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
      });
      if (events.length === 0) return { claimed: 0, created: [] as Execution[] };
      const workflows = await em.find(Workflow, {
        workspace: { $in: [...new Set(events.map((e) => e.workspace))] },
        triggerType: { $in: [...new Set(events.map((e) => e.type as TriggerType))] },
        isActive: true,
        deletedAt: null,
      });
      const executions = new ExecutionService(em, this.engine, this.logger);
      const created: Execution[] = [];
      const now = new Date();
      for (const event of events) {
        const notes: string[] = [];
        for (const workflow of workflows) {
          if (workflow.workspace !== event.workspace || workflow.triggerType !== event.type) continue;
          const skip = loopGuard(event.payload.cause as EventCause, workflow.id);
          if (skip) {
            notes.push(`${workflow.id}: ${skip}`);
            this.metrics[skip === 'depth limit reached' ? 'depthLimitStops' : 'loopGuardSkips'] += 1;
            this.logger.warn('loop guard: workflow not started', { eventId: event.id, workflowId: workflow.id, ticketId: event.ticketId, reason: skip });
            continue;
          }
          created.push(
            executions.build(em, {
              workflow,
              triggeredBy: event.type,
              ticketId: event.ticketId ?? null,
              eventId: event.id,
              chain: (event.payload.cause as EventCause)?.chain ?? [],
              context: contextOf(event),
            }, now),
          );
        }
        if (event.type === 'message_received' && event.ticketId) {
          signals.push(...(await this.waitingRuns(em, event)));
        }
        event.deliveredAt = now;
        event.attempts += 1;
        event.lastError = notes.length ? `loop guard: ${notes.join('; ')}` : null;
      }
      return { claimed: events.length, created };
    });
    this.metrics.eventsDelivered += claimed;
    this.metrics.executionsCreated += created.length;
    if (created.length > 0) {
      const executions = new ExecutionService(this.orm.em.fork(), this.engine, this.logger);
      await executions.dispatch(created).catch((err) => {
        this.metrics.dispatchFailures += 1;
        this.logger.warn('engine unavailable; executions stay pending until it is back', { error: String(err) });
      });
    }
    await Promise.all(
      signals.map((s) =>
        this.engine.signalCustomerReply(s.runId, s.messageId).catch((err) => this.logger.warn('reply signal failed', { runId: s.runId, error: String(err) })),
      ),
    );
    return claimed;
  }

  /** Runs of the ticket that may be waiting for the customer's reply. */
  private async waitingRuns(em: EntityManager, event: OutboxEvent) {
    const runs = await em.find(Execution, { ticketId: event.ticketId, status: 'running' }, { fields: ['runId'] });
    const messageId = String((event.payload.message as { id?: string } | undefined)?.id ?? event.id);
    return runs.map((r) => ({ runId: r.runId, messageId }));
  }
}

/** Why a workflow must not start for an event caused by an automation chain, or null. */
export function loopGuard(cause: EventCause, workflowId: string): string | null {
  if (!cause) return null;
  if (cause.chain.includes(workflowId)) return 'already ran in this chain for the ticket';
  if (cause.chain.length >= MAX_CHAIN_DEPTH) return 'depth limit reached';
  return null;
}

/** What the run's conditions and templates see for an event. */
function contextOf(event: OutboxEvent): Record<string, unknown> {
  const { ticket, message, changes, tag } = event.payload as Record<string, unknown>;
  return {
    ...(ticket ? { ticket } : {}),
    ...(message ? { message } : {}),
    ...(changes ? { changes } : {}),
    ...(tag !== undefined ? { tag } : {}),
  };
}
