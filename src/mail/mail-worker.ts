import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { MailImporter, type ImportServices } from './importer.ts';
import type { SecretBox } from './secrets.ts';
import { mailboxIds } from './store.ts';
import { MailboxWatcher } from './watcher.ts';

/** Starts the delivery workflows of outbound mail written outside a run (agent replies); returns how many it started. */
export type PendingDeliveries = { startPending(limit: number, workspaceIds?: string[]): Promise<number> };

export type MailWorkerOptions = {
  /** How often each mailbox is read even when IDLE says nothing. */
  pollMs: number;
  /** How often the worker looks for mailboxes to take up or drop, and deliveries to start (default 2 s). */
  scanMs?: number;
  /** Only the mailboxes (and deliveries) of these workspaces, read on every scan (the tests' own). Omitted: all. */
  workspaceIds?: ReadonlySet<string>;
  maxMailBytes?: number;
};

/**
 * The mail side of a worker process: one watcher per mailbox across all worker processes, and
 * the start of deliveries that wait for one. A mailbox is read by the process that holds its
 * PostgreSQL advisory lock, taken on a connection of this worker's own: a worker that dies (or
 * loses that connection) releases its mailboxes at once, and another worker takes them up on
 * its next scan.
 */
export class MailWorker {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly databaseUrl: string;
  private readonly secrets: () => SecretBox;
  private readonly deliveries: PendingDeliveries | undefined;
  private readonly options: MailWorkerOptions;
  private readonly importer: MailImporter;
  private readonly watchers = new Map<string, MailboxWatcher>();
  private locks: pg.Client | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  /** `services`: the composition root's services for a mail's transaction (`(em) => createServices(em, …)`, src/services.ts). */
  constructor(deps: { orm: MikroORM; logger: Logger; databaseUrl: string; secrets: () => SecretBox; deliveries?: PendingDeliveries; services: ImportServices } & MailWorkerOptions) {
    this.orm = deps.orm;
    this.logger = deps.logger;
    this.databaseUrl = deps.databaseUrl;
    this.secrets = deps.secrets;
    this.deliveries = deps.deliveries;
    this.options = deps;
    this.importer = new MailImporter({ orm: deps.orm, logger: deps.logger, services: deps.services, maxBytes: deps.maxMailBytes });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.dropAll();
    await this.locks?.end().catch(() => {});
    this.locks = null;
  }

  /** The mailboxes this process reads now. */
  watching(): string[] {
    return [...this.watchers.keys()];
  }

  /** Reads every watched mailbox now, and scans for new ones. */
  poke(): void {
    for (const watcher of this.watchers.values()) watcher.poke();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.scan();
      } catch (err) {
        this.logger.warn('mail worker scan failed; will retry', { error: String(err) });
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.scanMs ?? 2_000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private scope(): string[] | undefined {
    return this.options.workspaceIds ? [...this.options.workspaceIds] : undefined;
  }

  private async scan(): Promise<void> {
    const scope = this.scope();
    if (scope?.length === 0) return;
    const present = new Set(await mailboxIds(this.orm.em.fork(), scope));
    // No mailbox to read: no connection to hold locks on.
    const locks = present.size > 0 || this.watchers.size > 0 ? await this.lockConnection() : null;
    for (const [id, watcher] of this.watchers) {
      if (!present.has(id)) {
        this.watchers.delete(id);
        await watcher.stop();
        await locks?.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockName(id)]).catch(() => {});
      }
    }
    for (const id of present) {
      if (this.watchers.has(id) || !this.running || !locks) continue;
      const { rows: [got] } = await locks.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as "locked"', [lockName(id)]);
      if (!got?.locked) continue; // another worker reads it
      const watcher = new MailboxWatcher({
        orm: this.orm,
        logger: this.logger,
        importer: this.importer,
        secrets: this.secrets,
        mailboxId: id,
        pollMs: this.options.pollMs,
        onGone: () => this.wake?.(),
      });
      this.watchers.set(id, watcher);
      this.logger.info('reading mailbox', { mailboxId: id });
      watcher.start();
    }
    await this.deliveries?.startPending(100, scope).catch((err) => this.logger.warn('starting mail deliveries failed; will retry', { error: String(err) }));
  }

  /** The connection that holds this worker's mailbox locks; when it is lost, so are the locks, and every watcher stops. */
  private async lockConnection(): Promise<pg.Client> {
    if (this.locks) return this.locks;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', (err) => {
      if (this.locks !== client) return;
      this.locks = null;
      this.logger.warn('lost the connection holding the mailbox locks: stopping every watcher of this worker', { error: String(err) });
      void this.dropAll();
      void client.end().catch(() => {});
    });
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.locks = client;
    return client;
  }

  private async dropAll(): Promise<void> {
    const watchers = [...this.watchers.values()];
    this.watchers.clear();
    await Promise.all(watchers.map((w) => w.stop()));
  }
}

const lockName = (mailboxId: string) => `deskflow mailbox ${mailboxId}`;
