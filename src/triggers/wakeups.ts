import { PgListener } from '../common/pg-listener.ts';

/** Something that tells the relay new events have committed, so delivery need not wait for its next poll. */
export interface Wakeups {
  start(onWake: () => void): void;
  stop(): Promise<void>;
}

/** The outbox's insert trigger notifies `deskflow_outbox`; a missed notification only delays delivery until the next poll. */
export class PgNotifications implements Wakeups {
  private readonly databaseUrl: string;
  private listener: PgListener | null = null;

  constructor(databaseUrl: string) {
    this.databaseUrl = databaseUrl;
  }

  start(onWake: () => void): void {
    this.listener = new PgListener(this.databaseUrl, 'deskflow_outbox', { onNotify: onWake });
    this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
