import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import type { Logger } from '../logger.ts';
import { continueThread, outboundMessageId, replySubject, toSendOptions } from './compose.ts';
import { connectionProblem, smtpTransport } from './connections.ts';
import type { DeliveryStatus } from './entity.ts';
import { recordMailMessage } from './importer.ts';
import { secretContext } from './mailboxes.ts';
import type { SecretBox } from './secrets.ts';
import type { SmtpEndpoint } from './urls.ts';

/**
 * Outbound mail: every outbound message of a ticket whose workspace has a mailbox is sent to
 * the ticket's customer by SMTP, once.
 *
 * When the message is written, its delivery is fixed in the same transaction (queueDelivery):
 * the mailbox it goes out through, its Message-ID, subject and thread headers. An automation's
 * reply is then delivered by its run, as a retried activity; an agent's reply by a delivery
 * workflow of its own (deliverMail), started after the commit and, should Temporal be away
 * then, by the mail worker's next scan. Either way MailSender.deliver makes the attempts.
 */

export type Delivery = DeliveryStatus | 'not_configured';

/** Starts the delivery workflow of a message (TemporalEngine implements it); starting it twice is harmless. */
export interface MailDeliveryStarter {
  startMailDelivery(messageId: string, about: { to: string; subject: string }): Promise<void>;
}

type MailboxRow = { id: string; address: string; name: string | null };

/**
 * The mailbox a ticket's replies go out through: the one its customer's newest mail came in
 * by, else the workspace's first. Null: the workspace has none.
 */
export async function mailboxForTicket(em: EntityManager, workspaceId: string, ticketId: string): Promise<MailboxRow | null> {
  const [row] = await sql<MailboxRow>(
    em,
    `select m."id", m."address", m."name" from "mailboxes" m
      where m."workspace_id" = $1
      order by (m."id" = (select mm."mailbox_id" from "mail_messages" mm where mm."ticket_id" = $2 and mm."direction" = 'inbound' and mm."mailbox_id" is not null order by mm."created_at" desc limit 1)) desc nulls last,
               m."created_at", m."id"
      limit 1`,
    [workspaceId, ticketId],
  );
  return row ?? null;
}

/**
 * Fixes the delivery of an outbound message in the transaction of `em` (the one that wrote
 * it): its Message-ID (kept with the message for threading) and the mail's recipient, subject
 * and thread. Returns `pending`, or `not_configured` when the workspace has no mailbox (the
 * message is saved only). Called again for the same message (a retried action), it changes
 * nothing and answers the delivery's state.
 */
export async function queueDelivery(
  em: EntityManager,
  input: { workspaceId: string; ticketId: string; messageId: string; kind: 'automation' | 'agent'; via: 'run' | 'workflow' },
): Promise<Delivery> {
  const [existing] = await sql<{ status: DeliveryStatus }>(em, 'select "status" from "mail_deliveries" where "message_id" = $1', [input.messageId]);
  if (existing) return existing.status;
  const mailbox = await mailboxForTicket(em, input.workspaceId, input.ticketId);
  if (!mailbox) return 'not_configured';
  const [ticket] = await sql<{ subject: string; customer_email: string; customer_name: string | null }>(
    em,
    'select "subject", "customer_email", "customer_name" from "tickets" where "id" = $1',
    [input.ticketId],
  );
  // It answers the customer's newest mail; a ticket that never came by mail continues Deskflow's own thread.
  const [parent] = await sql<{ rfc_message_id: string; references: string[] }>(
    em,
    `select "rfc_message_id", "references" from "mail_messages" where "ticket_id" = $1 and "message_id" <> $2
      order by ("direction" = 'inbound') desc, "created_at" desc limit 1`,
    [input.ticketId, input.messageId],
  );
  const thread = continueThread(parent ? { rfcMessageId: parent.rfc_message_id, references: parent.references } : null);
  const rfcMessageId = outboundMessageId(input.messageId, mailbox.address);
  await recordMailMessage(em, { messageId: input.messageId, workspaceId: input.workspaceId, ticketId: input.ticketId, mailboxId: mailbox.id, direction: 'outbound', rfcMessageId, references: thread.references });
  await sql(
    em,
    `insert into "mail_deliveries" ("message_id", "workspace_id", "mailbox_id", "ticket_id", "kind", "via", "to_address", "to_name", "subject", "in_reply_to", "references", "status", "attempts", "created_at")
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', 0, now())`,
    [input.messageId, input.workspaceId, mailbox.id, input.ticketId, input.kind, input.via, ticket.customer_email, ticket.customer_name, replySubject(ticket.subject, input.ticketId), thread.inReplyTo, thread.references],
  );
  return 'pending';
}

/** The SMTP server refused the mail for good (a 5xx answer), or it can no longer be sent: no retry helps. */
export class DeliveryRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryRefused';
  }
}

type DeliveryRow = {
  message_id: string;
  ticket_id: string;
  kind: 'automation' | 'agent';
  status: DeliveryStatus;
  to_address: string;
  to_name: string | null;
  subject: string;
  in_reply_to: string | null;
  references: string[];
  last_error: string | null;
  smtp_response: string | null;
  body: string;
  body_html: string | null;
  rfc_message_id: string;
  mailbox_id: string | null;
  address: string | null;
  name: string | null;
  smtp: SmtpEndpoint | null;
  smtp_secret: string | null;
  plus_addressing: boolean | null;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the mail of an outbound message, once. */
export class MailSender {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly secrets: () => SecretBox;

  constructor(deps: { orm: MikroORM; logger: Logger; secrets: () => SecretBox }) {
    this.orm = deps.orm;
    this.logger = deps.logger;
    this.secrets = deps.secrets;
  }

  /**
   * One attempt. Answers `sent` (also when an earlier attempt was accepted: never a second
   * mail) or `not_configured`; throws DeliveryRefused for a 5xx answer or a delivery that
   * cannot happen any more, and any other error (the server unreachable, a 4xx answer) for the
   * caller to retry.
   */
  async deliver(messageId: string): Promise<{ delivery: 'sent' | 'not_configured'; response?: string }> {
    const em = this.orm.em.fork();
    const [d] = await sql<DeliveryRow>(
      em,
      `select d."message_id", d."ticket_id", d."kind", d."status", d."to_address", d."to_name", d."subject", d."in_reply_to", d."references", d."last_error", d."smtp_response",
              msg."body", msg."body_html", mm."rfc_message_id", d."mailbox_id", mb."address", mb."name", mb."smtp", mb."smtp_secret", mb."plus_addressing"
         from "mail_deliveries" d
         join "messages" msg on msg."id" = d."message_id"
         join "mail_messages" mm on mm."message_id" = d."message_id"
         left join "mailboxes" mb on mb."id" = d."mailbox_id"
        where d."message_id" = $1`,
      [messageId],
    );
    if (!d) return { delivery: 'not_configured' };
    if (d.status === 'sent') return { delivery: 'sent', response: d.smtp_response ?? undefined };
    if (d.status === 'failed') throw new DeliveryRefused(d.last_error ?? 'the delivery failed');
    if (!d.mailbox_id || !d.smtp || !d.smtp_secret || !d.address) {
      await this.fail(messageId, 'the mailbox was removed before the mail went out', null);
      throw new DeliveryRefused('the mailbox was removed before the mail went out');
    }
    await sql(em, 'update "mail_deliveries" set "attempts" = "attempts" + 1 where "message_id" = $1', [messageId]);

    const credential = this.secrets().openCredential(d.smtp_secret, secretContext(d.mailbox_id, 'smtp'));
    const transport = smtpTransport(d.smtp, credential);
    let response: string;
    try {
      const info = await transport.sendMail(
        toSendOptions({
          from: { address: d.address, name: d.name },
          to: { address: d.to_address, name: d.to_name },
          subject: d.subject,
          messageId: d.rfc_message_id,
          inReplyTo: d.in_reply_to,
          references: d.references,
          text: d.body,
          html: d.body_html,
          automatic: d.kind === 'automation',
          replyToTicket: d.plus_addressing ? { ticketId: d.ticket_id } : null,
        }),
      );
      response = String(info.response ?? '250 accepted');
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      const problem = connectionProblem(err);
      if (code !== undefined && code >= 500 && code < 600) {
        await this.fail(messageId, `refused by the SMTP server: ${problem}`, problem);
        throw new DeliveryRefused(`The SMTP server refused the mail to ${d.to_address}: ${problem}`);
      }
      await sql(em, 'update "mail_deliveries" set "last_error" = $2 where "message_id" = $1', [messageId, problem]).catch(() => {});
      this.logger.warn('mail not sent; will retry', { messageId, to: d.to_address, error: problem });
      throw new Error(`The SMTP server did not take the mail to ${d.to_address}: ${problem}`);
    } finally {
      transport.close();
    }

    // Accepted: record it, holding on through a database hiccup (a retry after this point would send a second mail).
    for (let attempt = 0; ; attempt++) {
      try {
        await sql(em, `update "mail_deliveries" set "status" = 'sent', "sent_at" = now(), "smtp_response" = $2, "last_error" = null where "message_id" = $1 and "status" = 'pending'`, [messageId, response]);
        break;
      } catch (err) {
        if (attempt >= 20) throw err;
        await sleep(Math.min(5_000, 250 * 2 ** attempt));
      }
    }
    this.logger.info('mail sent', { messageId, to: d.to_address, response });
    return { delivery: 'sent', response };
  }

  /** Marks the delivery failed (a refusal, a bounce, or retries given up). */
  async fail(messageId: string, reason: string, response: string | null): Promise<void> {
    await sql(
      this.orm.em.fork(),
      `update "mail_deliveries" set "status" = 'failed', "failed_at" = now(), "last_error" = $2, "smtp_response" = coalesce($3, "smtp_response") where "message_id" = $1 and "status" = 'pending'`,
      [messageId, reason, response],
    );
    this.logger.warn('mail delivery failed', { messageId, reason });
  }
}

/**
 * Starts the delivery workflows that are still to start (an agent reply written while Temporal
 * was away), from the rows: the mail worker calls it on every scan.
 */
export class PendingMailDeliveries {
  private readonly orm: MikroORM;
  private readonly starter: MailDeliveryStarter;
  private readonly logger: Logger;

  constructor(deps: { orm: MikroORM; starter: MailDeliveryStarter; logger: Logger }) {
    this.orm = deps.orm;
    this.starter = deps.starter;
    this.logger = deps.logger;
  }

  async startPending(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    return this.orm.em.fork().transactional(async (em) => {
      const rows = await sql<{ message_id: string; to_address: string; subject: string; created_at: string | Date }>(
        em,
        `select "message_id", "to_address", "subject", "created_at" from "mail_deliveries"
          where "via" = 'workflow' and "started_at" is null${workspaceIds ? ' and "workspace_id" = any($2)' : ''}
          order by "created_at" limit $1 for update skip locked`,
        workspaceIds ? [limit, workspaceIds] : [limit],
      );
      let started = 0;
      for (const row of rows) {
        try {
          await this.starter.startMailDelivery(row.message_id, { to: row.to_address, subject: row.subject });
          await sql(em, 'update "mail_deliveries" set "started_at" = now() where "message_id" = $1', [row.message_id]);
          started += 1;
        } catch (err) {
          this.logger.warn('mail delivery not started; will retry', { messageId: row.message_id, waitingSince: pgTimestamp(row.created_at).toISOString(), error: String(err) });
          break; // the engine is away: the next scan tries again
        }
      }
      return started;
    });
  }

  /** Marks one delivery's workflow started (the API started it right after its commit). */
  static async markStarted(em: EntityManager, messageId: string): Promise<void> {
    await sql(em, 'update "mail_deliveries" set "started_at" = now() where "message_id" = $1 and "started_at" is null', [messageId]);
  }
}
