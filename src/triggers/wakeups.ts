import { PgListener } from '../common/pg-listener.ts';
import { OUTBOX_CHANNEL } from '../events/outbox.ts';

/** Something that tells the relay new events have committed, so delivery need not wait for its next poll. */
export interface Wakeups {
  start(onWake: () => void): void;
  stop(): Promise<void>;
}

/**
 * Notifications on `deskflow_outbox`, sent after every commit of new events (src/common/commit-signals.ts,
 * or the outbox's insert trigger for other writers); a missed one only delays delivery until the next poll.
 */
export class PgNotifications implements Wakeups {
  private readonly databaseUrl: string;
  private listener: PgListener | null = null;

  constructor(databaseUrl: string) {
    this.databaseUrl = databaseUrl;
  }

  start(onWake: () => void): void {
    this.listener = new PgListener(this.databaseUrl, OUTBOX_CHANNEL, { onNotify: onWake });
    this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
