import type { PendingPass } from '../../../src/common/retry-until-acknowledged.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { OutboxRelay, type BatchDelivery, type ExpiredRows, type PendingStarter } from '../../../src/triggers/relay.ts';
import type { Wakeups } from '../../../src/triggers/wakeups.ts';

/** Delivery that has `waiting` events and hands them out `limit` at a time, recording each call. */
class FakeDelivery implements BatchDelivery {
  calls: Array<{ limit: number; scope: string[] | undefined }> = [];
  failNext = false;
  waiting: number;
  /** What a delivery also does (counts replies it recorded, runs it could not start). */
  alsoDoes: () => void = () => {};
  constructor(waiting: number) {
    this.waiting = waiting;
  }
  async deliverBatch(limit: number, scope?: string[]): Promise<number> {
    this.calls.push({ limit, scope });
    this.alsoDoes();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database unavailable');
    }
    const claimed = Math.min(limit, this.waiting);
    this.waiting -= claimed;
    return claimed;
  }
}

class FakePending implements PendingStarter {
  calls = 0;
  failing = false;
  async startPending(): Promise<PendingPass> {
    this.calls += 1;
    if (this.failing) throw new Error('engine unavailable');
    return { claimed: 0, acknowledged: 0, failed: 0 };
  }
}

/** `expired` rows, purged at most `limit` at a time. */
class FakeExpiredRows implements ExpiredRows {
  limits: number[] = [];
  failing = false;
  expired: number;
  constructor(expired: number) {
    this.expired = expired;
  }
  async purgeExpired(limit: number): Promise<number> {
    this.limits.push(limit);
    if (this.failing) throw new Error('database unavailable');
    const purged = Math.min(limit, this.expired);
    this.expired -= purged;
    return purged;
  }
}

class FakeWakeups implements Wakeups {
  wake: (() => void) | null = null;
  stopped = false;
  start(onWake: () => void): void {
    this.wake = onWake;
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('OutboxRelay', () => {
  let delivery: FakeDelivery;
  let pending: FakePending;
  let replyPasses: number;
  let wakeups: FakeWakeups;
  let expiredKeys: FakeExpiredRows;
  let expiredEvents: FakeExpiredRows;
  const relay = (opts: { workspaceIds?: Set<string>; pollMs?: number; purgeEveryMs?: number; purgeBudgetMs?: number } = {}) =>
    new OutboxRelay({
      delivery,
      pending,
      replies: { signalPending: async () => ((replyPasses += 1), 0) },
      expired: { 'idempotency keys': expiredKeys, 'delivered events': expiredEvents },
      wakeups,
      logger: createLogger('silent'),
      batchSize: 10,
      pollMs: opts.pollMs ?? 60_000,
      purgeEveryMs: opts.purgeEveryMs,
      purgeBudgetMs: opts.purgeBudgetMs,
      workspaceIds: opts.workspaceIds,
    });

  beforeEach(() => {
    delivery = new FakeDelivery(25);
    pending = new FakePending();
    replyPasses = 0;
    wakeups = new FakeWakeups();
    expiredKeys = new FakeExpiredRows(250);
    expiredEvents = new FakeExpiredRows(120);
  });

  it('delivers batch after batch until one comes back short, then starts pending runs once', async () => {
    await relay().deliverPending();
    expect(delivery.calls.map((c) => c.limit)).toEqual([10, 10, 10]);
    expect(delivery.waiting).toBe(0);
    expect(pending.calls).toBe(1);
  });

  it('asks for one more batch when the last one was exactly full', async () => {
    delivery.waiting = 20;
    await relay().deliverPending();
    expect(delivery.calls).toHaveLength(3);
  });

  it('limits delivery to its workspaces, read afresh on every pass', async () => {
    const scope = new Set(['ws-1']);
    const r = relay({ workspaceIds: scope });
    await r.deliverPending();
    scope.add('ws-2');
    await r.deliverPending();
    expect(delivery.calls[0].scope).toEqual(['ws-1']);
    expect(delivery.calls.at(-1)!.scope).toEqual(['ws-1', 'ws-2']);
  });

  it('counts a failure to start pending runs and carries on', async () => {
    pending.failing = true;
    const r = relay();
    await expect(r.deliverPending()).resolves.toBeUndefined();
    expect(r.metrics.dispatchFailures).toBe(1);
  });

  it('makes a pass at start, and another as soon as a commit wakes it, without waiting for the poll', async () => {
    const r = relay();
    r.start();
    await until(() => pending.calls === 1);
    delivery.waiting = 3;
    wakeups.wake!();
    await until(() => delivery.waiting === 0);
    await r.stop();
    expect(wakeups.stopped).toBe(true);
  });

  it('a pass woken by a commit delivers; it looks for runs not yet started only once the poll interval went by', async () => {
    const r = relay({ pollMs: 300 });
    r.start();
    await until(() => pending.calls === 1);
    for (let i = 0; i < 3; i++) {
      delivery.waiting = 3;
      wakeups.wake!();
      await until(() => delivery.waiting === 0);
    }
    expect(pending.calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    delivery.waiting = 3;
    wakeups.wake!();
    await until(() => pending.calls === 2);
    await r.stop();
  });

  it('a woken pass whose deliveries recorded customer replies passes them on at once', async () => {
    const r = relay();
    r.start();
    await until(() => replyPasses === 1);
    delivery.waiting = 3;
    wakeups.wake!();
    await until(() => delivery.waiting === 0);
    expect(replyPasses).toBe(1);
    delivery.alsoDoes = () => (r.metrics.repliesRecorded += 1);
    delivery.waiting = 1;
    wakeups.wake!();
    await until(() => replyPasses === 2);
    await r.stop();
  });

  it('a woken pass whose deliveries could not start a run retries the pending runs at once', async () => {
    const r = relay();
    r.start();
    await until(() => pending.calls === 1);
    delivery.alsoDoes = () => (r.metrics.dispatchFailures += 1);
    delivery.waiting = 3;
    wakeups.wake!();
    await until(() => pending.calls === 2);
    await r.stop();
  });

  it('survives a failed pass and tries again on the next poll', async () => {
    delivery.failNext = true;
    const r = relay({ pollMs: 10 });
    r.start();
    await until(() => delivery.waiting === 0);
    await r.stop();
    expect(delivery.calls.length).toBeGreaterThan(3);
  });

  it('purges expired idempotency keys batch by batch on its first pass, then not again until purgeEveryMs has passed', async () => {
    const r = relay();
    await r.deliverPending();
    expect(expiredKeys.limits).toEqual([100, 100, 100]);
    expect(expiredKeys.expired).toBe(0);
    expiredKeys.expired = 5;
    await r.deliverPending();
    expect(expiredKeys.limits).toHaveLength(3);
    expect(expiredKeys.expired).toBe(5);
  });

  it('purges on every pass when purgeEveryMs is 0, and a failed purge fails nothing else', async () => {
    const r = relay({ purgeEveryMs: 0 });
    expiredKeys.failing = true;
    await expect(r.deliverPending()).resolves.toBeUndefined();
    // The keys' failure did not keep the events from being purged.
    expect(expiredEvents.expired).toBe(0);
    expiredKeys.failing = false;
    await r.deliverPending();
    expect(expiredKeys.expired).toBe(0);
    expect(pending.calls).toBe(2);
  });

  it('purges every kind of expired row it is given, each batch by batch', async () => {
    await relay().deliverPending();
    expect(expiredKeys.limits).toEqual([100, 100, 100]);
    expect(expiredEvents.limits).toEqual([100, 100]);
    expect(expiredEvents.expired).toBe(0);
  });
  it('uses a purge batch size of its own where one is given', async () => {
    const executions = Object.assign(new FakeExpiredRows(45), { batchSize: 20 });
    await new OutboxRelay({
      delivery,
      pending,
      replies: { signalPending: async () => 0 },
      expired: { 'finished executions': executions },
      logger: createLogger('silent'),
      batchSize: 10,
    }).deliverPending();
    expect(executions.limits).toEqual([20, 20, 20]);
  });

  it('spends at most its purge budget per pass and goes on with what is left on the next passes, before purgeEveryMs', async () => {
    // A budget of 0: one batch of each kind per pass, delivery in between.
    const r = relay({ purgeBudgetMs: 0 });
    await r.deliverPending();
    expect(expiredKeys.limits).toEqual([100]);
    expect(expiredEvents.limits).toEqual([100]);
    await r.deliverPending();
    expect(expiredKeys.limits).toEqual([100, 100]);
    // The events' second batch came back short: they are done, the keys are not.
    expect(expiredEvents.limits).toEqual([100, 100]);
    await r.deliverPending();
    await r.deliverPending();
    expect(expiredKeys.limits).toEqual([100, 100, 100]);
    expect(expiredKeys.expired).toBe(0);
    expect(expiredEvents.limits).toHaveLength(2);
    expect(pending.calls).toBe(4);
  });
});
