import type { EntityManager } from '@mikro-orm/postgresql';
import { API_ACTOR } from '../actor.ts';
import type { AfterCommit } from '../common/after-commit.ts';
import { forbidden } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { MessageService } from '../messages/service.ts';
import type { MessageRecord } from '../messages/store.ts';
import { Member } from '../workspaces/entity.ts';
import { queueDelivery, type MailDeliveryStarter } from './outbound.ts';
import { deliveryAbout, mailboxForTicket, markDeliveriesStarted } from './store.ts';
import type { AgentReplyInput } from './reply-schema.ts';

/** Sender of agents' replies when the workspace has no mailbox (the reply is saved only). */
export const AGENT_SENDER_WITHOUT_MAILBOX = 'agent@deskflow.invalid';
/** Sender of the AI owner's replies when the workspace has no mailbox. */
export const AI_SENDER_WITHOUT_MAILBOX = 'ai@deskflow.invalid';

/**
 * Agents' replies (POST /api/v1/tickets/:id/replies): an outbound message from a current member
 * or admin of the workspace, delivered by mail to the ticket's customer like an automation's
 * reply. The message shows the mailbox's address as its sender and the agent as its name;
 * without a mailbox it is saved only. Delivery is a workflow of its own (deliverMail), started
 * once the message has committed; if Temporal is away then, the mail worker starts it later
 * from the delivery's row.
 */
export class ReplyService {
  private readonly em: EntityManager;
  private readonly starter: MailDeliveryStarter | undefined;
  private readonly afterCommit: AfterCommit | undefined;
  private readonly logger: Logger | undefined;

  constructor(em: EntityManager, deps: { starter?: MailDeliveryStarter; afterCommit?: AfterCommit; logger?: Logger } = {}) {
    this.em = em;
    this.starter = deps.starter;
    this.afterCommit = deps.afterCommit;
    this.logger = deps.logger;
  }

  async reply(workspaceId: string, ticketId: string, input: AgentReplyInput): Promise<MessageRecord> {
    if ((await this.em.count(Member, { workspace: workspaceId, userId: input.authorId })) === 0) {
      throw forbidden(`"${input.authorId}" is not a current member or admin of this workspace.`);
    }
    return this.send(workspaceId, ticketId, { body: input.body, bodyHtml: input.bodyHtml ?? null, senderName: input.authorId, withoutMailbox: AGENT_SENDER_WITHOUT_MAILBOX });
  }

  /**
   * The AI owner's reply (src/ai/owner.ts): sent and threaded exactly as an agent's, under the
   * owner's sender name. `idempotencyKey` makes a retried write answer the first message.
   */
  async replyAsOwner(workspaceId: string, ticketId: string, input: { body: string; senderName: string; idempotencyKey: string }): Promise<MessageRecord> {
    return this.send(workspaceId, ticketId, { body: input.body, bodyHtml: null, senderName: input.senderName, withoutMailbox: AI_SENDER_WITHOUT_MAILBOX, idempotencyKey: input.idempotencyKey });
  }

  private async send(
    workspaceId: string,
    ticketId: string,
    input: { body: string; bodyHtml: string | null; senderName: string; withoutMailbox: string; idempotencyKey?: string },
  ): Promise<MessageRecord> {
    const { message, delivery } = await this.em.transactional(async (em) => {
      const mailbox = await mailboxForTicket(em, workspaceId, ticketId);
      const { message } = await new MessageService(em).add(
        workspaceId,
        ticketId,
        { direction: 'outbound', body: input.body, bodyHtml: input.bodyHtml, senderEmail: mailbox?.address ?? input.withoutMailbox, senderName: input.senderName, idempotencyKey: input.idempotencyKey },
        API_ACTOR,
      );
      const delivery = await queueDelivery(em, { workspaceId, ticketId, messageId: message.id, kind: 'agent', via: 'workflow' });
      return { message, delivery };
    });
    if (delivery === 'pending') {
      const start = (em: EntityManager) => this.startDelivery(em, message.id);
      if (this.afterCommit) this.afterCommit(start);
      else await start(this.em);
    }
    return message;
  }

  private async startDelivery(em: EntityManager, messageId: string): Promise<void> {
    if (!this.starter) return; // the mail worker starts it
    try {
      const about = await deliveryAbout(em, messageId);
      if (!about) return; // its message was removed meanwhile: nothing to deliver
      await this.starter.startMailDelivery(messageId, about);
      await markDeliveriesStarted(em, [messageId]);
    } catch (err) {
      this.logger?.warn('mail delivery not started now; the mail worker will start it', { messageId, error: String(err) });
    }
  }
}
