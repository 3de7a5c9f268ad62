import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import { isUuid, newId } from '../ids.ts';
import { checkImap, checkSmtp, MailCheckError } from './connections.ts';
import { Mailbox, type MailboxState } from './entity.ts';
import type { MailCredential, SecretBox } from './secrets.ts';
import { displayUrl, type ImapEndpoint, type SmtpEndpoint } from './urls.ts';

/** Something an operator asked for that cannot be done (a duplicate, a failed check); the CLI says it and exits 1. */
export class MailboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailboxError';
  }
}

/** A mailbox as operators see it: never a password. */
export type MailboxView = {
  id: string;
  workspaceId: string;
  address: string;
  name: string | null;
  imap: string;
  smtp: string;
  plusAddressing: boolean;
  state: MailboxState;
  lastError: string | null;
  lastErrorAt: string | null;
  lastFetchAt: string | null;
  /** Mails taken in (tickets and replies), ignored (own, bounces, automatic) and skipped (too large, unreadable, failed). */
  mails: { imported: number; ignored: number; skipped: number };
  /** The newest skipped mail: what and why, so that an operator can find it in the mailbox. */
  lastSkipped: { at: string; outcome: string; detail: string | null } | null;
  createdAt: string;
};

export type NewMailbox = {
  workspaceId: string;
  address: string;
  name: string | null;
  imap: ImapEndpoint;
  imapCredential: MailCredential;
  smtp: SmtpEndpoint;
  smtpCredential: MailCredential;
  plusAddressing: boolean;
};

/** The context a sealed credential is bound to: its mailbox and field. */
export const secretContext = (mailboxId: string, field: 'imap' | 'smtp') => `mailbox:${mailboxId}:${field}`;

export type ConnectionChecks = {
  imap: (endpoint: ImapEndpoint, credential: MailCredential) => Promise<{ uidValidity: string; uidNext: number }>;
  smtp: (endpoint: SmtpEndpoint, credential: MailCredential) => Promise<void>;
};

/**
 * Connecting, listing and removing mailboxes (the admin CLI). A mailbox is saved only after
 * both of its connections worked; its cursor starts at the end of the folder, so mail that is
 * already there stays as it is and mail arriving from now on becomes tickets.
 */
export class MailboxService {
  private readonly em: EntityManager;
  private readonly secrets: () => SecretBox;
  private readonly checks: ConnectionChecks;

  constructor(em: EntityManager, deps: { secrets: () => SecretBox; checks?: ConnectionChecks }) {
    this.em = em;
    this.secrets = deps.secrets;
    this.checks = deps.checks ?? { imap: checkImap, smtp: checkSmtp };
  }

  async add(input: NewMailbox): Promise<MailboxView> {
    const address = input.address.toLowerCase();
    const box = this.secrets(); // a missing key is said before any connection is made
    const em = this.em.fork();
    if (await em.count(Mailbox, { workspace: input.workspaceId, address })) {
      throw new MailboxError(`the workspace already has a mailbox for ${address}; remove it first to change it.`);
    }
    const watched = await sql<{ id: string; workspace_id: string }>(
      em,
      `select "id", "workspace_id" from "mailboxes" where lower("imap"->>'host') = $1 and ("imap"->>'port')::int = $2 and "imap"->>'user' = $3 and "imap"->>'folder' = $4`,
      [input.imap.host.toLowerCase(), input.imap.port, input.imap.user, input.imap.folder],
    );
    if (watched[0]) {
      throw new MailboxError(`folder ${input.imap.folder} of ${input.imap.user} on ${input.imap.host} is already connected (mailbox ${watched[0].id} of workspace ${watched[0].workspace_id}); one folder feeds one mailbox.`);
    }

    const [imap, smtp] = await Promise.allSettled([this.checks.imap(input.imap, input.imapCredential), this.checks.smtp(input.smtp, input.smtpCredential)]);
    const failures = [imap, smtp].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason instanceof MailCheckError ? r.reason.message : String(r.reason)));
    if (failures.length > 0 || imap.status !== 'fulfilled') throw new MailboxError(`${failures.join('; ')}. Nothing was saved.`);

    const id = newId();
    const mailbox = em.create(Mailbox, {
      id,
      workspace: input.workspaceId,
      address,
      name: input.name,
      imap: input.imap,
      smtp: input.smtp,
      imapSecret: box.sealCredential(input.imapCredential, secretContext(id, 'imap')),
      smtpSecret: box.sealCredential(input.smtpCredential, secretContext(id, 'smtp')),
      plusAddressing: input.plusAddressing,
      state: 'new',
      uidValidity: imap.value.uidValidity,
      lastUid: Math.max(0, imap.value.uidNext - 1),
      importSince: new Date(),
    });
    await em.flush();
    return (await this.views([mailbox]))[0];
  }

  async list(workspaceId: string): Promise<MailboxView[]> {
    const mailboxes = await this.em.fork().find(Mailbox, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return this.views(mailboxes);
  }

  /** Removes the mailbox; its worker stops reading it within seconds. Tickets and messages stay. */
  async remove(mailboxId: string): Promise<MailboxView> {
    const em = this.em.fork();
    const mailbox = isUuid(mailboxId) ? await em.findOne(Mailbox, { id: mailboxId }) : null;
    if (!mailbox) throw new MailboxError(`mailbox not found: ${mailboxId}`);
    const [view] = await this.views([mailbox]);
    await em.nativeDelete(Mailbox, { id: mailbox.id });
    return view;
  }

  private async views(mailboxes: Mailbox[]): Promise<MailboxView[]> {
    if (mailboxes.length === 0) return [];
    const ids = mailboxes.map((m) => m.id);
    const counts = await sql<{ mailbox_id: string; outcome: string; n: string }>(
      this.em.fork(),
      'select "mailbox_id", "outcome", count(*) as "n" from "mail_receipts" where "mailbox_id" = any($1) group by 1, 2',
      [ids],
    );
    const skippedRows = await sql<{ mailbox_id: string; created_at: Date | string; outcome: string; detail: string | null }>(
      this.em.fork(),
      `select distinct on ("mailbox_id") "mailbox_id", "created_at", "outcome", "detail" from "mail_receipts"
        where "mailbox_id" = any($1) and "outcome" in ('too_large', 'invalid', 'failed') order by "mailbox_id", "created_at" desc`,
      [ids],
    );
    return mailboxes.map((m) => {
      const tally = { imported: 0, ignored: 0, skipped: 0 };
      for (const c of counts.filter((c) => c.mailbox_id === m.id)) {
        const bucket = ['ticket', 'reply', 'duplicate'].includes(c.outcome) ? 'imported' : ['own', 'bounce', 'automatic'].includes(c.outcome) ? 'ignored' : 'skipped';
        tally[bucket] += Number(c.n);
      }
      const skipped = skippedRows.find((r) => r.mailbox_id === m.id);
      return {
        id: m.id,
        workspaceId: m.workspace,
        address: m.address,
        name: m.name ?? null,
        imap: displayUrl('imap', m.imap),
        smtp: displayUrl('smtp', m.smtp),
        plusAddressing: m.plusAddressing,
        state: m.state,
        lastError: m.lastError ?? null,
        lastErrorAt: m.lastErrorAt?.toISOString() ?? null,
        lastFetchAt: m.lastFetchAt?.toISOString() ?? null,
        mails: tally,
        lastSkipped: skipped ? { at: pgTimestamp(skipped.created_at).toISOString(), outcome: skipped.outcome, detail: skipped.detail } : null,
        createdAt: m.createdAt.toISOString(),
      };
    });
  }
}
