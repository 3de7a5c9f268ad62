import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { Logger } from '../../src/logger.ts';
import { DeliveryRefused, MailSender } from '../../src/mail/outbound.ts';
import type { SecretBox } from '../../src/mail/secrets.ts';

export type MailActivityDeps = { orm: MikroORM; logger: Logger; secrets: () => SecretBox };

/**
 * The activities of outbound mail (src/mail/outbound.ts): one SMTP attempt, and giving up once
 * the server has been unreachable for longer than a delivery waits. A refusal (5xx) is
 * non-retryable: its message is the server's answer.
 */
export function createMailActivities(deps: MailActivityDeps) {
  const sender = new MailSender(deps);
  return {
    async deliverMail(input: { messageId: string }): Promise<{ delivery: 'sent' | 'not_configured'; response?: string }> {
      try {
        return await sender.deliver(input.messageId);
      } catch (err) {
        if (err instanceof DeliveryRefused) throw ApplicationFailure.nonRetryable(err.message, 'DeliveryRefused');
        throw err;
      }
    },

    /** The delivery waited as long as it may: it failed, with the last error it met. Returns that reason. */
    async mailDeliveryGaveUp(input: { messageId: string; waited: string }): Promise<string> {
      return sender.giveUp(input.messageId, input.waited);
    },
  };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
