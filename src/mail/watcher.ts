import type { ImapFlow } from 'imapflow';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { connectionProblem, imapClient, sessionProblem } from './connections.ts';
import type { MailImporter } from './importer.ts';
import { secretContext } from './mailboxes.ts';
import type { SecretBox } from './secrets.ts';
import { findMailbox, markError, markWatching, readCursor, resetCursor } from './store.ts';

/**
 * Reads one mailbox for as long as it runs: connects, opens the folder, takes in every mail
 * above the cursor (UIDVALIDITY, UID) oldest first, then waits in IMAP IDLE for the server to
 * announce new mail, reading the folder again at least every poll interval in case an
 * announcement was missed. A lost connection or server is retried with backoff (1 s doubling to
 * 60 s) and shown as the mailbox's state and last error. Only one watcher runs per mailbox (see
 * MailWorker); the importer's transactions make a second one harmless all the same.
 */
export class MailboxWatcher {
  readonly mailboxId: string;
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly importer: MailImporter;
  private readonly secrets: () => SecretBox;
  private readonly pollMs: number;
  private running = false;
  private loop: Promise<void> | null = null;
  private client: ImapFlow | null = null;
  private syncRequested = false;
  private wake: (() => void) | null = null;
  /** Called once the watcher ends by itself (its mailbox was removed). */
  private readonly onGone: () => void;

  constructor(deps: { orm: MikroORM; logger: Logger; importer: MailImporter; secrets: () => SecretBox; mailboxId: string; pollMs: number; onGone?: () => void }) {
    this.orm = deps.orm;
    this.logger = deps.logger;
    this.importer = deps.importer;
    this.secrets = deps.secrets;
    this.mailboxId = deps.mailboxId;
    this.pollMs = deps.pollMs;
    this.onGone = deps.onGone ?? (() => {});
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    const client = this.client;
    if (client) await client.logout().catch(() => client.close());
    await this.loop;
  }

  /** Reads the folder now (the server announced mail, or a test wants it read). */
  poke(): void {
    this.syncRequested = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let backoffMs = 1_000;
    while (this.running) {
      let client: ImapFlow | null = null;
      try {
        const mailbox = await findMailbox(this.orm.em.fork(), this.mailboxId);
        if (!mailbox) return this.gone();
        const credential = this.secrets().openCredential(mailbox.imapSecret, secretContext(mailbox.id, 'imap'));
        client = imapClient(mailbox.imap, credential);
        this.client = client;
        client.on('error', (err) => this.logger.debug('imap connection error', { mailboxId: this.mailboxId, error: connectionProblem(err) }));
        client.on('exists', () => this.poke());
        client.on('close', () => this.wake?.());
        await client.connect();
        await client.mailboxOpen(mailbox.imap.folder);
        backoffMs = 1_000;
        this.syncRequested = true;
        while (this.running && client.usable) {
          if (this.syncRequested) {
            this.syncRequested = false;
            if ((await this.sync(client)) === 'gone') return this.gone();
          }
          await this.pause(this.pollMs);
          if (!this.syncRequested && this.running && client.usable) this.syncRequested = true; // the poll: read again
        }
        if (this.running) throw new Error('the IMAP server closed the connection');
      } catch (err) {
        if (!this.running) break;
        const problem = sessionProblem(err, client);
        this.logger.warn('mailbox not readable; will retry', { mailboxId: this.mailboxId, error: problem, retryInMs: backoffMs });
        await markError(this.orm.em.fork(), this.mailboxId, problem).catch(() => {});
        await this.pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 60_000);
      } finally {
        this.client = null;
        if (client) await client.logout().catch(() => client!.close());
      }
    }
  }

  private gone(): void {
    this.running = false;
    this.logger.info('mailbox removed: no longer read', { mailboxId: this.mailboxId });
    this.onGone();
  }

  private pause(ms: number): Promise<void> {
    if (!this.running || this.syncRequested) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** Takes in every mail above the cursor, oldest first; flags \Seen what committed. */
  private async sync(client: ImapFlow): Promise<'done' | 'gone'> {
    const folder = client.mailbox;
    if (!folder) throw new Error('no folder is open');
    const uidValidity = String(folder.uidValidity);
    const cursor = await readCursor(this.orm.em.fork(), this.mailboxId);
    if (!cursor) return 'gone';
    let lastUid = cursor.lastUid;
    if (cursor.uidValidity !== uidValidity) {
      // The server renumbered the folder (a restore, a migration): every UID means another mail
      // now. Read it afresh; what was taken in already is recognised by its Message-ID.
      this.logger.warn('the folder has a new UIDVALIDITY: reading it afresh', { mailboxId: this.mailboxId, from: cursor.uidValidity, to: uidValidity });
      await resetCursor(this.orm.em.fork(), this.mailboxId, uidValidity);
      lastUid = 0;
    }

    // A crash between a commit and its flag leaves the flag to set.
    const unseen = await this.importer.unseen(this.mailboxId, uidValidity);
    if (unseen.length > 0) {
      await client.messageFlagsAdd(unseen.map((r) => r.uid).join(','), ['\\Seen'], { uid: true });
      await this.importer.markSeen(unseen.map((r) => r.id));
    }

    for (;;) {
      // `n:*` names the newest mail even when it is below n: keep only what is above the cursor.
      const batch: Array<{ uid: number; size: number; internalDate: Date | null; summary: string }> = [];
      for await (const m of client.fetch(`${lastUid + 1}:*`, { uid: true, size: true, internalDate: true, envelope: true }, { uid: true })) {
        if (m.uid > lastUid) {
          const from = m.envelope?.from?.[0]?.address ?? 'no sender';
          batch.push({ uid: m.uid, size: m.size ?? 0, internalDate: m.internalDate ? new Date(m.internalDate) : null, summary: `from ${from}: "${m.envelope?.subject ?? ''}"` });
        }
      }
      if (batch.length === 0) break;
      batch.sort((a, b) => a.uid - b.uid);
      for (const m of batch.slice(0, 100)) {
        if (!this.running) return 'done';
        let source: Buffer | null = null;
        if (m.size <= this.importer.maxMailBytes) {
          const fetched = await client.fetchOne(String(m.uid), { source: true }, { uid: true });
          source = fetched && fetched.source ? fetched.source : null;
          if (!source) continue; // expunged meanwhile: nothing to take in
        }
        const result = await this.importer.importMail(this.mailboxId, uidValidity, { uid: m.uid, size: m.size, receivedAt: m.internalDate, source, summary: m.summary });
        if (result.outcome === 'mailbox_removed') return 'gone';
        if (result.flagSeen && result.receiptId) {
          await client.messageFlagsAdd(String(m.uid), ['\\Seen'], { uid: true });
          await this.importer.markSeen([result.receiptId]);
        }
        lastUid = m.uid;
      }
    }
    await markWatching(this.orm.em.fork(), this.mailboxId);
    return 'done';
  }
}
