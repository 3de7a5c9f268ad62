import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { retryUntilAcknowledged } from '../common/retry-until-acknowledged.ts';
import { readTicket } from '../tickets/store.ts';
import { continueThread, outboundMessageId, replySubject, toSendOptions } from './compose.ts';
import { connectionProblem, smtpTransport } from './connections.ts';
import type { DeliveryStatus } from './entity.ts';
import { secretContext } from './mailboxes.ts';
import type { SecretBox } from './secrets.ts';
import {
  countAttempt,
  deliveriesToStart,
  deliveryAbout,
  deliveryStatus,
  deliveryToSend,
  insertDelivery,
  mailboxForTicket,
  markDeliveryFailed,
  markDeliverySent,
  markDeliveriesStarted,
  noteDeliveryError,
  recordMailMessage,
  replyParent,
} from './store.ts';

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
  const existing = await deliveryStatus(em, input.messageId);
  if (existing) return existing;
  const mailbox = await mailboxForTicket(em, input.workspaceId, input.ticketId);
  if (!mailbox) return 'not_configured';
  const ticket = await readTicket(em, input.workspaceId, input.ticketId);
  // It answers the customer's newest mail; a ticket that never came by mail continues Deskflow's own thread.
  const thread = continueThread(await replyParent(em, input.ticketId, input.messageId));
  const rfcMessageId = outboundMessageId(input.messageId, mailbox.address);
  await recordMailMessage(em, { messageId: input.messageId, workspaceId: input.workspaceId, ticketId: input.ticketId, mailboxId: mailbox.id, direction: 'outbound', rfcMessageId, references: thread.references });
  await insertDelivery(em, {
    messageId: input.messageId,
    workspaceId: input.workspaceId,
    mailboxId: mailbox.id,
    ticketId: input.ticketId,
    kind: input.kind,
    via: input.via,
    toAddress: ticket.customerEmail,
    toName: ticket.customerName ?? null,
    subject: replySubject(ticket.subject, input.ticketId),
    inReplyTo: thread.inReplyTo,
    references: thread.references,
  });
  return 'pending';
}

/** The SMTP server refused the mail for good (a 5xx answer), or it can no longer be sent: no retry helps. */
export class DeliveryRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryRefused';
  }
}

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
    const d = await deliveryToSend(em, messageId);
    if (!d) return { delivery: 'not_configured' };
    if (d.status === 'sent') return { delivery: 'sent', response: d.smtp_response ?? undefined };
    if (d.status === 'failed') throw new DeliveryRefused(d.last_error ?? 'the delivery failed');
    if (!d.mailbox_id || !d.smtp || !d.smtp_secret || !d.address) {
      await this.fail(messageId, 'the mailbox was removed before the mail went out', null);
      throw new DeliveryRefused('the mailbox was removed before the mail went out');
    }
    await countAttempt(em, messageId);

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
      await noteDeliveryError(em, messageId, problem).catch(() => {});
      this.logger.warn('mail not sent; will retry', { messageId, to: d.to_address, error: problem });
      throw new Error(`The SMTP server did not take the mail to ${d.to_address}: ${problem}`);
    } finally {
      transport.close();
    }

    // Accepted: record it, holding on through a database hiccup (a retry after this point would send a second mail).
    for (let attempt = 0; ; attempt++) {
      try {
        await markDeliverySent(em, messageId, response);
        break;
      } catch (err) {
        if (attempt >= 20) throw err;
        await sleep(Math.min(5_000, 250 * 2 ** attempt));
      }
    }
    this.logger.info('mail sent', { messageId, to: d.to_address, response });
    return { delivery: 'sent', response };
  }

  /** The delivery waited as long as it may (`waited`, e.g. "1 day"): it fails, with the last error it met. Returns that reason. */
  async giveUp(messageId: string, waited: string): Promise<string> {
    const delivery = await deliveryAbout(this.orm.em.fork(), messageId);
    const reason = `The mail to ${delivery?.to ?? 'the customer'} could not be sent for ${waited}; last error: ${delivery?.lastError ?? 'none recorded'}`;
    await this.fail(messageId, reason, null);
    return reason;
  }

  /** Marks the delivery failed (a refusal, a bounce, or retries given up). */
  async fail(messageId: string, reason: string, response: string | null): Promise<void> {
    await markDeliveryFailed(this.orm.em.fork(), messageId, reason, response);
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
    const pass = await retryUntilAcknowledged(
      this.orm.em.fork(),
      limit,
      {
        what: 'mail delivery starts',
        claim: (em, limit) => deliveriesToStart(em, limit, workspaceIds),
        handOff: (row) => this.starter.startMailDelivery(row.messageId, { to: row.to, subject: row.subject }),
        acknowledge: (em, rows) => markDeliveriesStarted(em, rows.map((row) => row.messageId)),
        describe: (row) => ({ messageId: row.messageId, waitingSince: row.createdAt.toISOString() }),
      },
      this.logger,
    );
    return pass.acknowledged;
  }
}
