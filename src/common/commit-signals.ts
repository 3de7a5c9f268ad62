import type { EntityManager, EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';

/**
 * Sends the NOTIFY that wakes the listeners of a channel (the relays, on `deskflow_outbox`)
 * once the rows they wait for have committed, instead of from inside the writing transaction.
 * PostgreSQL takes one lock for every transaction that notifies and holds it through that
 * transaction's commit: commits that notify wait for each other's disk flush, one after the
 * other, where commits that do not are flushed together. Here the writes commit freely and a
 * notification follows them.
 *
 * Sent one at a time per channel: a commit while one is under way is followed by one more, so
 * every commit is followed by a notification sent after it. Should the process stop between
 * the commit and the notification, the listeners' poll finds the rows (within a second).
 *
 * Deskflow's connections say so to the database (`deskflow.outbox_notify`): the outbox's
 * trigger then leaves the notification to this. Other writers (an earlier release during a
 * rolling upgrade, psql) are notified for by the trigger, as before.
 */
export class CommitSignals implements EventSubscriber {
  /** Channels to signal when a transaction (by its context) commits. */
  private readonly pending = new WeakMap<object, Set<string>>();
  private readonly channels = new Map<string, { sending: boolean; again: boolean }>();

  /**
   * Rows `channel`'s listeners wait for were just written through `em`: signalled now when the
   * statement stood alone (it has committed), else when its transaction commits. Inside a
   * savepoint the notification goes with the transaction itself, as the trigger's would.
   */
  async written(em: EntityManager, channel: string, notifyInTransaction: () => Promise<unknown>): Promise<void> {
    const context = em.getTransactionContext<object & { savepointName?: string }>();
    if (!context) return this.signal(channel, em);
    if (context.savepointName !== undefined) {
      await notifyInTransaction();
      return;
    }
    const channels = this.pending.get(context) ?? new Set<string>();
    this.pending.set(context, channels.add(channel));
  }

  afterTransactionCommit(args: TransactionEventArgs): void {
    const channels = args.transaction && this.pending.get(args.transaction);
    if (!channels) return;
    this.pending.delete(args.transaction!);
    for (const channel of channels) this.signal(channel, args.em);
  }

  private signal(channel: string, em: EntityManager): void {
    const state = this.channels.get(channel) ?? { sending: false, again: false };
    this.channels.set(channel, state);
    if (state.sending) {
      state.again = true;
      return;
    }
    state.sending = true;
    const connection = em.getConnection();
    void (async () => {
      do {
        state.again = false;
        // A notification that fails (the database away) is not worth a retry: the poll finds the rows.
        await connection.execute(`select pg_notify(?, '')`, [channel]).catch(() => {});
      } while (state.again);
      state.sending = false;
    })();
  }
}

/** The CommitSignals of the ORM `em` belongs to, if it has one. */
export function commitSignalsOf(em: EntityManager): CommitSignals | undefined {
  for (const subscriber of em.getEventManager().getSubscribers()) if (subscriber instanceof CommitSignals) return subscriber;
  return undefined;
}
