import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid, newId } from '../ids.ts';
import { checkImap, checkSmtp, MailCheckError } from './connections.ts';
import type { Mailbox, MailboxState, ReceiptOutcome } from './entity.ts';
import type { MailCredential, SecretBox } from './secrets.ts';
import { deleteMailbox, findMailbox, hasMailbox, lastSkipped, mailboxesOf, mailboxOnFolder, receiptTally, saveMailbox } from './store.ts';
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
  /** Mails taken in (tickets and replies), ignored (the same mail again, own, bounces, automatic) and skipped (too large, unreadable, failed). */
  mails: MailTally;
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

export type MailTally = { imported: number; ignored: number; skipped: number };

/**
 * What became of a mailbox's mail, from the count of each receipt outcome. Imported: a new
 * ticket or reply. A duplicate (a mail already taken in, delivered or renumbered again) made
 * nothing new: it is ignored, with own mail, bounces and automatic mail.
 */
export function mailTally(counts: Array<{ outcome: ReceiptOutcome; n: number | string }>): MailTally {
  const tally: MailTally = { imported: 0, ignored: 0, skipped: 0 };
  for (const { outcome, n } of counts) tally[TALLY_OF[outcome]] += Number(n);
  return tally;
}

const TALLY_OF: Record<ReceiptOutcome, keyof MailTally> = {
  ticket: 'imported',
  reply: 'imported',
  duplicate: 'ignored',
  own: 'ignored',
  bounce: 'ignored',
  automatic: 'ignored',
  too_large: 'skipped',
  invalid: 'skipped',
  failed: 'skipped',
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
    if (await hasMailbox(em, input.workspaceId, address)) {
      throw new MailboxError(`the workspace already has a mailbox for ${address}; remove it first to change it.`);
    }
    const watched = await mailboxOnFolder(em, input.imap);
    if (watched) {
      throw new MailboxError(`folder ${input.imap.folder} of ${input.imap.user} on ${input.imap.host} is already connected (mailbox ${watched.id} of workspace ${watched.workspace_id}); one folder feeds one mailbox.`);
    }

    const [imap, smtp] = await Promise.allSettled([this.checks.imap(input.imap, input.imapCredential), this.checks.smtp(input.smtp, input.smtpCredential)]);
    const failures = [imap, smtp].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason instanceof MailCheckError ? r.reason.message : String(r.reason)));
    if (failures.length > 0 || imap.status !== 'fulfilled') throw new MailboxError(`${failures.join('; ')}. Nothing was saved.`);

    const id = newId();
    const mailbox = await saveMailbox(em, {
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
    return (await this.views([mailbox]))[0];
  }

  async list(workspaceId: string): Promise<MailboxView[]> {
    const mailboxes = await mailboxesOf(this.em.fork(), workspaceId);
    return this.views(mailboxes);
  }

  /** Removes the mailbox; its worker stops reading it within seconds. Tickets and messages stay. */
  async remove(mailboxId: string): Promise<MailboxView> {
    const em = this.em.fork();
    const mailbox = isUuid(mailboxId) ? await findMailbox(em, mailboxId) : null;
    if (!mailbox) throw new MailboxError(`mailbox not found: ${mailboxId}`);
    const [view] = await this.views([mailbox]);
    await deleteMailbox(em, mailbox.id);
    return view;
  }

  private async views(mailboxes: Mailbox[]): Promise<MailboxView[]> {
    if (mailboxes.length === 0) return [];
    const ids = mailboxes.map((m) => m.id);
    const counts = await receiptTally(this.em.fork(), ids);
    const skippedOf = await lastSkipped(this.em.fork(), ids);
    return mailboxes.map((m) => {
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
        mails: mailTally(counts.filter((c) => c.mailbox_id === m.id)),
        lastSkipped: skippedOf.get(m.id) ?? null,
        createdAt: m.createdAt.toISOString(),
      };
    });
  }
}
