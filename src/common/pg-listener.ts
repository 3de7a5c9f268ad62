import pg from 'pg';

export type ListenerHandlers = {
  onNotify: (payload: string) => void;
  /** LISTEN is in place (again): notifications from now on arrive. */
  onListening?: () => void;
  /** The connection is gone: notifications may be missed until onListening. */
  onLost?: () => void;
};

/**
 * LISTEN on a PostgreSQL channel over a connection of its own, reconnecting by itself after a
 * second whenever the connection is lost.
 */
export class PgListener {
  private readonly databaseUrl: string;
  private readonly channel: string;
  private readonly handlers: ListenerHandlers;
  private client: pg.Client | null = null;
  private running = false;

  constructor(databaseUrl: string, channel: string, handlers: ListenerHandlers) {
    this.databaseUrl = databaseUrl;
    this.channel = channel;
    this.handlers = handlers;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /**
   * Resolves once every notification committed before the call has been handled: PostgreSQL
   * sends a connection's pending notifications before the answer to its next query.
   */
  async caughtUp(): Promise<void> {
    await this.client?.query('select 1');
  }

  async stop(): Promise<void> {
    this.running = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    while (this.running && !this.client) {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      try {
        client.on('error', () => {
          if (this.client === client) {
            this.client = null;
            this.handlers.onLost?.();
          }
          void client.end().catch(() => {});
          if (this.running) setTimeout(() => void this.connect(), 1_000);
        });
        client.on('notification', (n) => this.handlers.onNotify(n.payload ?? ''));
        await client.connect();
        await client.query(`listen "${this.channel}"`);
        if (!this.running) {
          await client.end().catch(() => {});
          return;
        }
        this.client = client;
        this.handlers.onListening?.();
      } catch {
        await client.end().catch(() => {});
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }
}
