import type { PendingPass } from '../common/retry-until-acknowledged.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowEngine } from '../executions/engine.ts';
import { errorFields, type Logger } from '../logger.ts';
import { purgeDeliveredEvents } from '../events/outbox.ts';
import { purgeFinishedExecutions } from '../executions/retention.ts';
import { IdempotencyService } from '../idempotency/service.ts';
import { foldFilterCounts } from '../tickets/counts.ts';
import { ExecutionDispatcher } from '../executions/dispatcher.ts';
import { EventDelivery, newRelayMetrics, type RelayMetrics } from './event-delivery.ts';
import { ReplySignals } from './reply-signals.ts';
import { pendingDecisions } from '../approvals/signals.ts';
import { SlaPasses } from '../sla/passes.ts';
import { SlaTimers, type SlaTimerEngine } from '../sla/timers.ts';
import { OwnerWakeups, purgeDeliveredWakeups } from '../ai/wakeups.ts';
import type { AiOwnerEngine } from '../ai/engine.ts';
import { PgNotifications, type Wakeups } from './wakeups.ts';

/** Delivers a batch of events; returns how many it claimed. */
export type BatchDelivery = { deliverBatch(limit: number, workspaceIds?: string[]): Promise<number> };
/** Starts runs of executions the engine could not take when they were created; returns how many it tried. */
export type PendingStarter = { startPending(limit: number, workspaceIds?: string[]): Promise<PendingPass> };
/** Signals recorded customer replies to their runs; returns how many it tried. */
export type PendingReplies = { signalPending(limit: number, workspaceIds?: string[]): Promise<number> };
/**
 * The upkeep of service-level clocks besides the events (src/sla): the passes that choose the
 * policies of unsolved tickets again after a policy or calendar changed (for at most `budgetMs`;
 * returns how many timers they moved), and the timers to signal until Temporal acknowledges them.
 */
export type SlaUpkeep = { runPending(workspaceIds: string[] | undefined, budgetMs: number): Promise<number>; signalPending?(limit: number, workspaceIds?: string[]): Promise<number> };
/**
 * Deletes up to `limit` rows past their time (idempotency keys, delivered events, finished
 * executions) or spent (the filter counters' shards, folded); returns how many. `batchSize` overrides the relay's purge batch (ten of its
 * delivery batches) for rows whose deletion cascades to others.
 */
export type ExpiredRows = { purgeExpired(limit: number, workspaceIds?: string[]): Promise<number>; batchSize?: number };

export type RelayOptions = {
  batchSize?: number;
  pollMs?: number;
  /** How often expired rows are purged (default: every minute). */
  purgeEveryMs?: number;
  /**
   * How long one pass may spend purging (default: half a second). A backlog larger than that
   * (the first purge after an upgrade, a retention shortened) is worked off over the next
   * passes, between deliveries, instead of holding up delivery until it is gone.
   */
  purgeBudgetMs?: number;
  /**
   * Deliver only the events (start only the runs, purge only the rows) of these
   * workspaces; read on every pass. For relays that each bring an engine of their own to one
   * shared database (the engine tests: a task queue per test file). Omitted: every workspace.
   */
  workspaceIds?: ReadonlySet<string>;
  /**
   * Why the engine would refuse every start now (a namespace without Deskflow's search
   * attributes), or null. While it says why, runs are left pending rather than tried on every
   * pass: whoever knows the reason has said it once.
   */
  startsBlocked?: () => string | null;
};

/**
 * The outbox relay (docs/contract.md §6): a loop that delivers every waiting event, batch by
 * batch, then starts runs still pending, and sleeps until the next poll or until a commit of
 * new events wakes it. Runs in every worker process; relays share the work through the
 * claim's row locks.
 */
export class OutboxRelay {
  readonly metrics: RelayMetrics;
  private readonly delivery: BatchDelivery;
  private readonly pending: PendingStarter;
  private readonly replies: PendingReplies;
  private readonly decisions: PendingReplies | undefined;
  private readonly sla: SlaUpkeep | undefined;
  private readonly owner: PendingReplies | undefined;
  private readonly expired: Record<string, ExpiredRows>;
  private readonly wakeups: Wakeups | undefined;
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly purgeEveryMs: number;
  private readonly purgeBudgetMs: number;
  private lastPurgeAt = -Infinity;
  /** When pending runs and replies were last looked for. */
  private lastCatchUpAt = -Infinity;
  /** Purges that stopped at the budget with rows left: the next pass goes on with them. */
  private readonly purgeBehind = new Set<string>();
  private readonly workspaceIds: ReadonlySet<string> | undefined;
  private readonly startsBlocked: () => string | null;
  private running = false;
  private wake: (() => void) | null = null;
  /** A wakeup came while a pass was under way: the events it announced may have missed that pass. */
  private woken = false;
  private loop: Promise<void> | null = null;

  constructor(
    deps: {
      delivery: BatchDelivery;
      pending: PendingStarter;
      replies: PendingReplies;
      /** Signals decided approvals to their waiting runs. */
      decisions?: PendingReplies;
      sla?: SlaUpkeep;
      /** Hands the AI owner's recorded wake-ups to its runs (src/ai/wakeups.ts). */
      owner?: PendingReplies;
      /** What to purge, by what it is called in the logs. */
      expired?: Record<string, ExpiredRows>;
      wakeups?: Wakeups;
      logger: Logger;
      metrics?: RelayMetrics;
    } & RelayOptions,
  ) {
    this.delivery = deps.delivery;
    this.pending = deps.pending;
    this.replies = deps.replies;
    this.decisions = deps.decisions;
    this.sla = deps.sla;
    this.owner = deps.owner;
    this.expired = deps.expired ?? {};
    this.wakeups = deps.wakeups;
    this.logger = deps.logger;
    this.metrics = deps.metrics ?? newRelayMetrics();
    this.batchSize = deps.batchSize ?? 100;
    this.pollMs = deps.pollMs ?? 1_000;
    this.purgeEveryMs = deps.purgeEveryMs ?? 60_000;
    this.purgeBudgetMs = deps.purgeBudgetMs ?? 500;
    this.workspaceIds = deps.workspaceIds;
    this.startsBlocked = deps.startsBlocked ?? (() => null);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wakeups?.start(() => {
      this.woken = true;
      this.wake?.();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.wakeups?.stop();
  }

  /**
   * One pass: deliver every waiting event (batch by batch), retry runs not yet started, pass
   * replies on to waiting runs, and, when it is time, purge expired idempotency keys and events.
   */
  async deliverPending(): Promise<void> {
    await this.pass(true);
  }

  /**
   * A pass that delivers events; with `catchUp` (or when its deliveries recorded replies or
   * failed to start a run, or when pollMs went by since the last time) it also retries runs
   * not yet started and passes on replies. Under a stream of events most passes are woken by
   * a commit, and the rows those two look for are rare: looking costs a transaction each.
   */
  private async pass(catchUp: boolean): Promise<void> {
    const scope = this.workspaceIds ? [...this.workspaceIds] : undefined;
    const before = { replies: this.metrics.repliesRecorded, failures: this.metrics.dispatchFailures, sla: this.metrics.slaSignalsDue, wakeups: this.metrics.ownerWakeupsRecorded };
    while ((await this.delivery.deliverBatch(this.batchSize, scope)) >= this.batchSize);
    const due =
      catchUp ||
      this.metrics.repliesRecorded !== before.replies ||
      this.metrics.dispatchFailures !== before.failures ||
      this.metrics.slaSignalsDue !== before.sla ||
      this.metrics.ownerWakeupsRecorded !== before.wakeups ||
      Date.now() - this.lastCatchUpAt >= this.pollMs;
    if (due) {
      this.lastCatchUpAt = Date.now();
      if (this.sla) {
        this.metrics.slaSignalsDue += await this.sla.runPending(scope, this.purgeBudgetMs).catch((err) => {
          this.logger.warn('choosing SLA policies again failed; will retry', errorFields(err));
          return 0;
        });
      }
      if (this.startsBlocked() === null) {
        const pass = await this.pending.startPending(this.batchSize, scope).catch((err) => {
          this.logger.warn('starting pending executions failed; will retry', errorFields(err));
          return null;
        });
        // A pass that could not run, or that Temporal did not fully take, is a failed dispatch.
        if (pass === null || pass.failed > 0) this.metrics.dispatchFailures += 1;
      }
      await this.replies.signalPending(this.batchSize, scope).catch((err) => {
        this.logger.warn('passing replies on failed; will retry', errorFields(err));
      });
      await this.decisions?.signalPending(this.batchSize, scope).catch((err) => {
        this.logger.warn('passing approval decisions on failed; will retry', errorFields(err));
      });
      await this.sla?.signalPending?.(this.batchSize, scope).catch((err) => {
        this.logger.warn('signalling SLA timers failed; will retry', errorFields(err));
      });
      await this.owner?.signalPending(this.batchSize, scope).catch((err) => {
        this.logger.warn('waking AI owner runs failed; will retry', errorFields(err));
      });
    }
    await this.purgeExpired(scope);
  }

  /**
   * Batch after batch until one comes back short, at most once per purgeEveryMs, and for at
   * most purgeBudgetMs per pass: what is left then is taken up on the next pass.
   */
  private async purgeExpired(scope: string[] | undefined): Promise<void> {
    const due = Date.now() - this.lastPurgeAt >= this.purgeEveryMs;
    if (!due && this.purgeBehind.size === 0) return;
    if (due) this.lastPurgeAt = Date.now();
    const deadline = Date.now() + this.purgeBudgetMs;
    for (const [what, rows] of Object.entries(this.expired)) {
      if (!due && !this.purgeBehind.has(what)) continue;
      this.purgeBehind.delete(what);
      const limit = rows.batchSize ?? this.batchSize * 10;
      try {
        // At least one batch of each, however the budget went.
        while ((await rows.purgeExpired(limit, scope)) >= limit) {
          if (Date.now() >= deadline) {
            this.purgeBehind.add(what);
            break;
          }
        }
      } catch (err) {
        this.logger.warn(`purging expired ${what} failed; will retry`, errorFields(err));
      }
    }
  }

  private async run(): Promise<void> {
    // The first pass, and every one the poll brings, does all; those woken by commits deliver.
    let catchUp = true;
    while (this.running) {
      this.woken = false;
      let failed = false;
      try {
        await this.pass(catchUp);
      } catch (err) {
        failed = true;
        this.logger.warn('outbox relay pass failed; will retry', errorFields(err));
      }
      if (!this.running) break;
      // Events committed during the pass go out at once, not at the next poll; under a steady
      // stream each pass takes what came in during the one before, a batch at a time. A pass
      // that failed waits for the poll, however many wakeups came.
      catchUp = false;
      if (this.woken && !failed) continue;
      catchUp = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      this.wake = null;
    }
  }
}

/** The relay of a worker process: delivery, pending starts and purges on the database, woken by its notifications. */
export function createOutboxRelay(
  deps: {
    orm: MikroORM;
    engine: WorkflowEngine;
    /** Runs the AI owner's runs (the same Temporal client); without it their wake-ups wait. */
    aiOwner?: AiOwnerEngine;
    logger: Logger;
    databaseUrl: string;
    outboxRetentionDays: number;
    executionRetentionDays?: number;
  } & RelayOptions,
): OutboxRelay {
  const metrics = newRelayMetrics();
  const passes = new SlaPasses(deps);
  const engine = deps.engine as WorkflowEngine & Partial<SlaTimerEngine>;
  const timers = engine.signalSlaClocks ? new SlaTimers({ orm: deps.orm, engine: engine as SlaTimerEngine, logger: deps.logger }) : null;
  return new OutboxRelay({
    ...deps,
    metrics,
    delivery: new EventDelivery({ orm: deps.orm, engine: deps.engine, logger: deps.logger, metrics, startsBlocked: deps.startsBlocked }),
    pending: { startPending: (limit, scope) => new ExecutionDispatcher(deps.orm.em.fork(), deps).startPending(limit, scope) },
    replies: new ReplySignals(deps),
    decisions: pendingDecisions(deps),
    sla: {
      runPending: (scope, budgetMs) => passes.runPending(scope, budgetMs),
      // An engine that can hold timers (Temporal's) gets them signalled.
      ...(timers ? { signalPending: (limit: number, scope?: string[]) => timers.signalPending(limit, scope) } : {}),
    },
    owner: deps.aiOwner ? new OwnerWakeups({ orm: deps.orm, engine: deps.aiOwner, logger: deps.logger }) : undefined,
    expired: {
      'idempotency keys': { purgeExpired: (limit, scope) => new IdempotencyService(deps.orm.em.fork()).purgeExpired(limit, scope) },
      'delivered events': { purgeExpired: (limit, scope) => purgeDeliveredEvents(deps.orm.em.fork(), deps.outboxRetentionDays, limit, scope) },
      'AI owner wake-ups': { purgeExpired: (limit, scope) => purgeDeliveredWakeups(deps.orm.em.fork(), deps.outboxRetentionDays, limit, scope) },
      // Each execution takes its steps with it: smaller batches keep each statement short.
      'finished executions': {
        purgeExpired: (limit, scope) => purgeFinishedExecutions(deps.orm.em.fork(), deps.executionRetentionDays ?? 90, limit, scope),
        batchSize: 200,
      },
      // Not expired rows but spent ones: the filter counters' shards, folded into one row per combination.
      'ticket filter counter shards': { purgeExpired: (limit, scope) => foldFilterCounts(deps.orm.em.fork(), limit, scope) },
    },
    wakeups: new PgNotifications(deps.databaseUrl),
  });
}
