import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { API_ACTOR } from '../actor.ts';
import { isOutageOrUnanswered } from '../common/outage.ts';
import { databaseCheck, passes } from '../http/health.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { bounceReport, classifyMail } from './classify.ts';
import { customerOf, mailBody, ticketSubject, usableAddress } from './content.ts';
import type { ReceiptOutcome } from './entity.ts';
import { parseMail, type MailFacts } from './parse.ts';
import {
  advanceCursor,
  failBouncedDeliveries,
  insertReceipt,
  lockMailbox,
  lockMessageId,
  mailMessageByMessageId,
  markReceiptsSeen,
  onlyTicketBetween,
  recordMailMessage,
  ticketById,
  ticketByMessageIds,
  unseenReceipts,
  type LockedMailbox,
} from './store.ts';
import { chooseThread, threadKeys } from './thread.ts';

/**
 * Turns one mail of a mailbox into exactly one ticket or message, or into nothing (own mail,
 * bounces, automatic mail), through the same services as the API (tickets.create,
 * messages.add: events, reopening, message_received workflows and waiting runs follow as they
 * do for a REST call). Each mail is one transaction that locks its mailbox's row, writes the
 * receipt (unique per mailbox, UIDVALIDITY and UID), the ticket or message and the mailbox's
 * cursor together: a mail is taken in once, whatever restarts, crashes or second workers do.
 * The same mail delivered twice (one Message-ID) is one message per workspace. Flagging \Seen
 * on the server comes after the commit (the watcher does it).
 */

/** Mail larger than this is recorded as skipped, not read (and never blocks the next one). */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;

/** How far the IMAP server's clock (INTERNALDATE) may be behind Deskflow's. */
const CLOCK_ALLOWANCE_MS = 10 * 60_000;

export type IncomingMail = {
  uid: number;
  size: number;
  /** When the server received it (INTERNALDATE). */
  receivedAt: Date | null;
  /** The raw mail; null when it was not fetched (too large). */
  source: Buffer | null;
  /** From and subject as the server's envelope gives them, for a skipped mail's record. */
  summary: string;
};

export type ImportResult = {
  outcome: ReceiptOutcome | 'already' | 'before_connection' | 'mailbox_removed';
  receiptId?: string;
  ticketId?: string;
  messageId?: string;
  /** Whether the watcher should flag the mail \Seen: a ticket or message exists for it. */
  flagSeen: boolean;
};

/**
 * The services a mail goes through, on the transaction of the mail (the composition root's:
 * `(em) => createServices(em, …)` of src/services.ts).
 */
export type ImportServices = (em: EntityManager) => Pick<Services, 'tickets' | 'messages'>;

type Decision = { outcome: ReceiptOutcome; detail: string; ticketId?: string; messageId?: string; rfcMessageId?: string | null };

const FLAGGED: ReadonlySet<string> = new Set(['ticket', 'reply', 'duplicate']);

export class MailImporter {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly services: ImportServices;
  private readonly maxBytes: number;

  constructor(deps: { orm: MikroORM; logger: Logger; services: ImportServices; maxBytes?: number }) {
    this.orm = deps.orm;
    this.logger = deps.logger;
    this.services = deps.services;
    this.maxBytes = deps.maxBytes ?? MAX_MAIL_BYTES;
  }

  get maxMailBytes(): number {
    return this.maxBytes;
  }

  /**
   * Takes in one mail. A failure of the database is thrown (the watcher retries later: nothing
   * was written); a mail that cannot be taken in for any other reason is recorded as `failed`
   * with the reason, so it never blocks the mail after it.
   */
  async importMail(mailboxId: string, uidValidity: string, mail: IncomingMail): Promise<ImportResult> {
    let facts: MailFacts | null = null;
    let parseError: string | null = null;
    if (mail.source) {
      try {
        facts = await parseMail(mail.source);
      } catch (err) {
        parseError = `unreadable mail (${mail.summary}): ${String(err)}`;
      }
    }
    let lastError: unknown;
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await this.orm.em.fork().transactional((em) => this.takeIn(em, mailboxId, uidValidity, mail, facts, parseError));
      } catch (err) {
        if (err instanceof AlreadyTakenIn) return { outcome: 'already', flagSeen: false };
        // The database is away (not a problem of this mail): the watcher waits and reads the mail again.
        if (await isOutageOrUnanswered(err, () => passes(databaseCheck(this.orm), 2_000))) throw err;
        lastError = err;
        this.logger.warn('taking in a mail failed', { mailboxId, uid: mail.uid, attempt, error: String(err) });
      }
    }
    // Record it as failed, so that the next mail is not held up; if the database is away this
    // fails too and the error goes up (the mail is read again once it is back).
    return this.orm.em.fork().transactional((em) =>
      this.takeIn(em, mailboxId, uidValidity, mail, null, `could not be taken in (${mail.summary}): ${String(lastError)}`, 'failed'),
    );
  }

  private async takeIn(
    em: EntityManager,
    mailboxId: string,
    uidValidity: string,
    mail: IncomingMail,
    facts: MailFacts | null,
    problem: string | null,
    problemOutcome: ReceiptOutcome = 'invalid',
  ): Promise<ImportResult> {
    const mailbox = await lockMailbox(em, mailboxId);
    if (!mailbox) return { outcome: 'mailbox_removed', flagSeen: false };
    if (mailbox.uidValidity !== uidValidity || mailbox.lastUid >= mail.uid) return { outcome: 'already', flagSeen: false };
    const advance = () => advanceCursor(em, mailboxId, mail.uid);

    // Read afresh after a UIDVALIDITY change: what reached the server before the mailbox was
    // connected stays as it is (with ten minutes' allowance for the server's clock).
    if (mail.receivedAt && mail.receivedAt.getTime() < mailbox.importSince.getTime() - CLOCK_ALLOWANCE_MS) {
      await advance();
      return { outcome: 'before_connection', flagSeen: false };
    }

    let decision: Decision;
    if (problem !== null) decision = { outcome: problemOutcome, detail: problem };
    else if (!facts) decision = { outcome: 'too_large', detail: `${mail.size} bytes, over the limit of ${this.maxBytes} (${mail.summary})` };
    else decision = await this.decide(em, mailbox, facts, mail.source!);

    const receiptId = await insertReceipt(em, {
      mailboxId,
      uidValidity,
      uid: mail.uid,
      rfcMessageId: decision.rfcMessageId ?? facts?.messageId ?? null,
      size: mail.size,
      outcome: decision.outcome,
      ticketId: decision.ticketId ?? null,
      messageId: decision.messageId ?? null,
      detail: decision.detail,
    });
    // Another watcher took this very mail in meanwhile: undo what this transaction made of it.
    if (!receiptId) throw new AlreadyTakenIn();
    await advance();
    if (decision.outcome === 'too_large' || decision.outcome === 'invalid' || decision.outcome === 'failed') {
      this.logger.warn('mail skipped', { mailboxId, uid: mail.uid, outcome: decision.outcome, detail: decision.detail });
    } else {
      this.logger.info('mail taken in', { mailboxId, uid: mail.uid, outcome: decision.outcome, ticketId: decision.ticketId });
    }
    return { outcome: decision.outcome, receiptId, ticketId: decision.ticketId, messageId: decision.messageId, flagSeen: FLAGGED.has(decision.outcome) };
  }

  private async decide(em: EntityManager, mailbox: LockedMailbox, facts: MailFacts, source: Buffer): Promise<Decision> {
    const from = facts.from?.address ?? '(no sender)';
    const about = `from ${from}: "${facts.subject}"`;
    const classification = classifyMail(facts, mailbox.address);
    if (classification.kind === 'own' || classification.kind === 'automatic') return { outcome: classification.kind, detail: `${classification.reason}; ${about}` };
    if (classification.kind === 'bounce') return this.bounce(em, mailbox, facts, classification.reason);

    const sender = usableAddress(facts.from);
    if (!sender) return { outcome: 'invalid', detail: `no usable sender address (${about})` };
    const rfcMessageId = facts.messageId ?? `<${createHash('sha256').update(source).digest('hex').slice(0, 40)}.no-message-id@deskflow.invalid>`;
    const workspaceId = mailbox.workspaceId;
    // One mail, one message per workspace, also when two of its mailboxes receive it at once.
    await lockMessageId(em, workspaceId, rfcMessageId);
    const known = await mailMessageByMessageId(em, workspaceId, rfcMessageId);
    if (known) return { outcome: 'duplicate', detail: `the same mail as message ${known.messageId} (${about})`, ticketId: known.ticketId, messageId: known.messageId, rfcMessageId };

    const services = this.services(em);
    const content = mailBody(facts);
    const notes = content.notes.length ? `; ${content.notes.join('; ')}` : '';
    const thread = chooseThread(await this.lookUp(em, workspaceId, threadKeys(facts, mailbox.address)), sender.address);
    let taken: { ticketId: string; messageId: string };
    if (thread.ticketId) {
      const { message } = await services.messages.add(
        workspaceId,
        thread.ticketId,
        { direction: 'inbound', body: content.body, bodyHtml: content.bodyHtml, senderEmail: sender.address, senderName: sender.name },
        API_ACTOR,
      );
      taken = { ticketId: thread.ticketId, messageId: message.id };
    } else {
      const customer = customerOf(facts) ?? sender;
      const { ticket, message } = await services.tickets.create(
        workspaceId,
        { subject: ticketSubject(facts.subject), customerEmail: customer.address, customerName: customer.name ?? undefined, body: content.body, bodyHtml: content.bodyHtml, source: 'email' },
        API_ACTOR,
      );
      taken = { ticketId: ticket.id, messageId: message.id };
    }
    const references = [...facts.references, ...facts.inReplyTo.filter((id) => !facts.references.includes(id))];
    await recordMailMessage(em, { ...taken, workspaceId, mailboxId: mailbox.id, direction: 'inbound', rfcMessageId, references });
    const detail = thread.ticketId ? `threaded by ${thread.by} (${about})${notes}` : `new ticket: ${'reason' in thread ? thread.reason : ''} (${about})${notes}`;
    return { outcome: thread.ticketId ? 'reply' : 'ticket', detail, ...taken, rfcMessageId };
  }

  /** What each thread key finds in the workspace (see src/mail/thread.ts). */
  private async lookUp(em: EntityManager, workspaceId: string, keys: ReturnType<typeof threadKeys>) {
    const byHeader = keys.messageIds.length > 0 ? await ticketByMessageIds(em, workspaceId, keys.messageIds) : null;
    const byReplyAddress = keys.replyAddressTicketId ? await ticketById(em, workspaceId, keys.replyAddressTicketId) : null;
    // The subject's reference is the id's first 10 hex digits: a range of the primary key.
    const bySubject = keys.subjectRef ? await onlyTicketBetween(em, workspaceId, idWithPrefix(keys.subjectRef, '0'), idWithPrefix(keys.subjectRef, 'f')) : null;
    return { byHeader, byReplyAddress, bySubject };
  }

  /** A bounce creates nothing; when it returns a reply Deskflow sent, that delivery failed. */
  private async bounce(em: EntityManager, mailbox: LockedMailbox, facts: MailFacts, reason: string): Promise<Decision> {
    const report = bounceReport(facts);
    const failed = await failBouncedDeliveries(em, mailbox.workspaceId, report.messageIds, `bounced: ${report.diagnostic}`);
    for (const messageId of failed) this.logger.warn('a reply bounced', { messageId, diagnostic: report.diagnostic });
    const what = failed.length ? `returns message ${failed.join(', ')}` : 'returns no mail Deskflow sent';
    return { outcome: 'bounce', detail: `${reason}; ${what}: ${report.diagnostic}` };
  }

  /** Receipts whose ticket or message committed but whose \Seen flag is not set yet (a crash between the two). */
  async unseen(mailboxId: string, uidValidity: string): Promise<Array<{ id: string; uid: number }>> {
    return unseenReceipts(this.orm.em.fork(), mailboxId, uidValidity);
  }

  async markSeen(receiptIds: string[]): Promise<void> {
    await markReceiptsSeen(this.orm.em.fork(), receiptIds);
  }
}

/** Thrown inside a transaction to roll it back: the receipt shows the mail was taken in by another watcher. */
class AlreadyTakenIn extends Error {}

/** The smallest (`fill` 0) or largest (`fill` f) ticket id that starts with these hex digits. */
function idWithPrefix(hex: string, fill: '0' | 'f'): string {
  const full = (hex + fill.repeat(32)).slice(0, 32);
  return `${full.slice(0, 8)}-${full.slice(8, 12)}-${full.slice(12, 16)}-${full.slice(16, 20)}-${full.slice(20)}`;
}
