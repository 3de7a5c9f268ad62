import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { API_ACTOR } from '../actor.ts';
import { isOutageOrUnanswered } from '../common/outage.ts';
import { pgTimestamp, sql } from '../common/sql.ts';
import { databaseCheck, passes } from '../http/health.ts';
import type { Logger } from '../logger.ts';
import { MessageService, initialMessage } from '../messages/service.ts';
import { MemberAssignees } from '../tickets/assignees.ts';
import { TicketService } from '../tickets/service.ts';
import { bounceReport, classifyMail } from './classify.ts';
import { customerOf, mailBody, ticketSubject, usableAddress } from './content.ts';
import type { ReceiptOutcome } from './entity.ts';
import { parseMail, type MailFacts } from './parse.ts';
import { chooseThread, threadKeys, type ThreadMatch } from './thread.ts';

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

type MailboxRow = { id: string; workspace_id: string; address: string; uid_validity: string | null; last_uid: string | number; import_since: Date | string };

type Decision = { outcome: ReceiptOutcome; detail: string; ticketId?: string; messageId?: string; rfcMessageId?: string | null };

const FLAGGED: ReadonlySet<string> = new Set(['ticket', 'reply', 'duplicate']);

export class MailImporter {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly maxBytes: number;

  constructor(deps: { orm: MikroORM; logger: Logger; maxBytes?: number }) {
    this.orm = deps.orm;
    this.logger = deps.logger;
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
    const [mailbox] = await sql<MailboxRow>(em, 'select "id", "workspace_id", "address", "uid_validity", "last_uid", "import_since" from "mailboxes" where "id" = $1 for update', [mailboxId]);
    if (!mailbox) return { outcome: 'mailbox_removed', flagSeen: false };
    if (mailbox.uid_validity !== uidValidity || Number(mailbox.last_uid) >= mail.uid) return { outcome: 'already', flagSeen: false };
    const advance = () => sql(em, 'update "mailboxes" set "last_uid" = $2, "last_fetch_at" = now() where "id" = $1', [mailboxId, mail.uid]);

    // Read afresh after a UIDVALIDITY change: what reached the server before the mailbox was
    // connected stays as it is (with ten minutes' allowance for the server's clock).
    if (mail.receivedAt && mail.receivedAt.getTime() < pgTimestamp(mailbox.import_since).getTime() - CLOCK_ALLOWANCE_MS) {
      await advance();
      return { outcome: 'before_connection', flagSeen: false };
    }

    let decision: Decision;
    if (problem !== null) decision = { outcome: problemOutcome, detail: problem };
    else if (!facts) decision = { outcome: 'too_large', detail: `${mail.size} bytes, over the limit of ${this.maxBytes} (${mail.summary})` };
    else decision = await this.decide(em, mailbox, facts, mail.source!);

    const [receipt] = await sql<{ id: string }>(
      em,
      `insert into "mail_receipts" ("id", "created_at", "mailbox_id", "uid_validity", "uid", "rfc_message_id", "size", "outcome", "ticket_id", "message_id", "detail")
       values (gen_random_uuid(), now(), $1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing returning "id"`,
      [mailboxId, uidValidity, mail.uid, decision.rfcMessageId ?? facts?.messageId ?? null, mail.size, decision.outcome, decision.ticketId ?? null, decision.messageId ?? null, decision.detail.slice(0, 2000)],
    );
    // Another watcher took this very mail in meanwhile: undo what this transaction made of it.
    if (!receipt) throw new AlreadyTakenIn();
    await advance();
    if (decision.outcome === 'too_large' || decision.outcome === 'invalid' || decision.outcome === 'failed') {
      this.logger.warn('mail skipped', { mailboxId, uid: mail.uid, outcome: decision.outcome, detail: decision.detail });
    } else {
      this.logger.info('mail taken in', { mailboxId, uid: mail.uid, outcome: decision.outcome, ticketId: decision.ticketId });
    }
    return { outcome: decision.outcome, receiptId: receipt.id, ticketId: decision.ticketId, messageId: decision.messageId, flagSeen: FLAGGED.has(decision.outcome) };
  }

  private async decide(em: EntityManager, mailbox: MailboxRow, facts: MailFacts, source: Buffer): Promise<Decision> {
    const from = facts.from?.address ?? '(no sender)';
    const about = `from ${from}: "${facts.subject}"`;
    const classification = classifyMail(facts, mailbox.address);
    if (classification.kind === 'own' || classification.kind === 'automatic') return { outcome: classification.kind, detail: `${classification.reason}; ${about}` };
    if (classification.kind === 'bounce') return this.bounce(em, mailbox, facts, classification.reason);

    const sender = usableAddress(facts.from);
    if (!sender) return { outcome: 'invalid', detail: `no usable sender address (${about})` };
    const rfcMessageId = facts.messageId ?? `<${createHash('sha256').update(source).digest('hex').slice(0, 40)}.no-message-id@deskflow.invalid>`;
    const workspaceId = mailbox.workspace_id;
    // One mail, one message per workspace, also when two of its mailboxes receive it at once.
    await sql(em, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [`deskflow mail ${workspaceId} ${rfcMessageId}`]);
    const [known] = await sql<{ ticket_id: string; message_id: string }>(em, 'select "ticket_id", "message_id" from "mail_messages" where "workspace_id" = $1 and "rfc_message_id" = $2', [workspaceId, rfcMessageId]);
    if (known) return { outcome: 'duplicate', detail: `the same mail as message ${known.message_id} (${about})`, ticketId: known.ticket_id, messageId: known.message_id, rfcMessageId };

    const services = { tickets: new TicketService(em, { assignees: new MemberAssignees(em), initialMessage: initialMessage }), messages: new MessageService(em) };
    const content = mailBody(facts);
    const notes = content.notes.length ? `; ${content.notes.join('; ')}` : '';
    const thread = chooseThread(await this.lookUp(em, workspaceId, threadKeys(facts, mailbox.address)), sender.address);
    if (thread.ticketId) {
      const { message } = await services.messages.add(
        workspaceId,
        thread.ticketId,
        { direction: 'inbound', body: content.body, bodyHtml: content.bodyHtml, senderEmail: sender.address, senderName: sender.name },
        API_ACTOR,
      );
      await recordMailMessage(em, { messageId: message.id, workspaceId, ticketId: thread.ticketId, mailboxId: mailbox.id, direction: 'inbound', rfcMessageId, references: [...facts.references, ...facts.inReplyTo.filter((id) => !facts.references.includes(id))] });
      return { outcome: 'reply', detail: `threaded by ${thread.by} (${about})${notes}`, ticketId: thread.ticketId, messageId: message.id, rfcMessageId };
    }

    const customer = customerOf(facts) ?? sender;
    const ticket = await services.tickets.create(
      workspaceId,
      { subject: ticketSubject(facts.subject), customerEmail: customer.address, customerName: customer.name ?? undefined, body: content.body, bodyHtml: content.bodyHtml, source: 'email' },
      API_ACTOR,
    );
    const [first] = await sql<{ id: string }>(em, 'select "id" from "messages" where "ticket_id" = $1 and "seq" = 1', [ticket.id]);
    await recordMailMessage(em, { messageId: first.id, workspaceId, ticketId: ticket.id, mailboxId: mailbox.id, direction: 'inbound', rfcMessageId, references: [...facts.references, ...facts.inReplyTo.filter((id) => !facts.references.includes(id))] });
    return { outcome: 'ticket', detail: `new ticket: ${'reason' in thread ? thread.reason : ''} (${about})${notes}`, ticketId: ticket.id, messageId: first.id, rfcMessageId };
  }

  /** What each thread key finds in the workspace (see src/mail/thread.ts). */
  private async lookUp(em: EntityManager, workspaceId: string, keys: ReturnType<typeof threadKeys>) {
    type Row = { ticket_id: string; customer_email: string };
    const match = (row: Row | undefined): ThreadMatch | null => (row ? { ticketId: row.ticket_id, customerEmail: row.customer_email } : null);
    let byHeader: ThreadMatch | null = null;
    if (keys.messageIds.length > 0) {
      const rows = await sql<Row & { rfc_message_id: string }>(
        em,
        `select mm."rfc_message_id", t."id" as "ticket_id", t."customer_email" from "mail_messages" mm join "tickets" t on t."id" = mm."ticket_id"
          where mm."workspace_id" = $1 and mm."rfc_message_id" = any($2)`,
        [workspaceId, keys.messageIds],
      );
      const first = keys.messageIds.map((id) => rows.find((r) => r.rfc_message_id === id)).find(Boolean);
      byHeader = match(first);
    }
    const ticket = (id: string) => sql<Row>(em, 'select "id" as "ticket_id", "customer_email" from "tickets" where "id" = $1 and "workspace_id" = $2', [id, workspaceId]);
    const byReplyAddress = keys.replyAddressTicketId ? match((await ticket(keys.replyAddressTicketId))[0]) : null;
    let bySubject: ThreadMatch | null = null;
    if (keys.subjectRef) {
      // The reference is the id's first 10 hex digits: a range of the primary key.
      const hex = keys.subjectRef;
      const bound = (fill: string) => {
        const full = (hex + fill.repeat(32)).slice(0, 32);
        return `${full.slice(0, 8)}-${full.slice(8, 12)}-${full.slice(12, 16)}-${full.slice(16, 20)}-${full.slice(20)}`;
      };
      const rows = await sql<Row>(
        em,
        'select "id" as "ticket_id", "customer_email" from "tickets" where "workspace_id" = $1 and "id" between $2 and $3 limit 2',
        [workspaceId, bound('0'), bound('f')],
      );
      bySubject = rows.length === 1 ? match(rows[0]) : null;
    }
    return { byHeader, byReplyAddress, bySubject };
  }

  /** A bounce creates nothing; when it returns a reply Deskflow sent, that delivery failed. */
  private async bounce(em: EntityManager, mailbox: MailboxRow, facts: MailFacts, reason: string): Promise<Decision> {
    const report = bounceReport(facts);
    const failed = await sql<{ message_id: string }>(
      em,
      `update "mail_deliveries" set "status" = 'failed', "failed_at" = now(), "last_error" = $3
        where "message_id" in (select "message_id" from "mail_messages" where "workspace_id" = $1 and "direction" = 'outbound' and "rfc_message_id" = any($2))
        returning "message_id"`,
      [mailbox.workspace_id, report.messageIds, `bounced: ${report.diagnostic}`],
    );
    for (const row of failed) this.logger.warn('a reply bounced', { messageId: row.message_id, diagnostic: report.diagnostic });
    const what = failed.length ? `returns message ${failed.map((r) => r.message_id).join(', ')}` : 'returns no mail Deskflow sent';
    return { outcome: 'bounce', detail: `${reason}; ${what}: ${report.diagnostic}` };
  }

  /** Receipts whose ticket or message committed but whose \Seen flag is not set yet (a crash between the two). */
  async unseen(mailboxId: string, uidValidity: string): Promise<Array<{ id: string; uid: number }>> {
    const rows = await sql<{ id: string; uid: string }>(
      this.orm.em.fork(),
      `select "id", "uid" from "mail_receipts" where "mailbox_id" = $1 and "uid_validity" = $2 and "seen_at" is null and "outcome" in ('ticket', 'reply', 'duplicate') order by "uid" limit 500`,
      [mailboxId, uidValidity],
    );
    return rows.map((r) => ({ id: r.id, uid: Number(r.uid) }));
  }

  async markSeen(receiptIds: string[]): Promise<void> {
    if (receiptIds.length) await sql(this.orm.em.fork(), 'update "mail_receipts" set "seen_at" = now() where "id" = any($1)', [receiptIds]);
  }
}

/** Thrown inside a transaction to roll it back: the receipt shows the mail was taken in by another watcher. */
class AlreadyTakenIn extends Error {}

export async function recordMailMessage(
  em: EntityManager,
  m: { messageId: string; workspaceId: string; ticketId: string; mailboxId: string | null; direction: 'inbound' | 'outbound'; rfcMessageId: string; references: string[] },
): Promise<void> {
  await sql(
    em,
    'insert into "mail_messages" ("message_id", "workspace_id", "ticket_id", "mailbox_id", "direction", "rfc_message_id", "references", "created_at") values ($1, $2, $3, $4, $5, $6, $7, now())',
    [m.messageId, m.workspaceId, m.ticketId, m.mailboxId, m.direction, m.rfcMessageId, m.references],
  );
}
