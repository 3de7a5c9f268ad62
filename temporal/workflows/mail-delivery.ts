import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, proxyLocalActivities, TimeoutFailure } from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail.ts';
import { failureMessage } from './failure-message.ts';

/**
 * How outbound mail is delivered, by an automation's run (send_reply) and by the delivery
 * workflow of an agent's reply alike: SMTP attempts as a retried activity, with backoff from
 * 1 s doubling to at most a minute, for up to 24 hours; an outage is waited out and the mail
 * goes out once the server takes it. A refusal (5xx) ends it at once with the server's answer.
 */
const PATIENCE = '24 hours';

function smtp(summary: string) {
  return proxyActivities<MailActivities>({
    startToCloseTimeout: '2 minutes',
    scheduleToCloseTimeout: PATIENCE,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryRefused'] },
    summary,
  });
}

const local = proxyLocalActivities<MailActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/**
 * Delivers the mail of an outbound message: `sent` or `not_configured`; a delivery that failed
 * for good (refused, or the server unreachable for 24 hours) throws a non-retryable failure
 * whose message says why.
 */
export async function deliverMessage(messageId: string, summary: string): Promise<'sent' | 'not_configured'> {
  try {
    return (await smtp(summary).deliverMail({ messageId })).delivery;
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) {
      throw ApplicationFailure.nonRetryable(await local.mailDeliveryGaveUp({ messageId, waited: PATIENCE }), 'DeliveryFailed');
    }
    throw ApplicationFailure.nonRetryable(failureMessage(err), 'DeliveryFailed');
  }
}

/** The delivery of one outbound message written outside a run (an agent's reply); its record is the delivery's row. */
export async function deliverMail(input: { messageId: string }): Promise<{ delivery: 'sent' | 'failed' | 'not_configured'; error?: string }> {
  try {
    return { delivery: await deliverMessage(input.messageId, 'deliver mail') };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { delivery: 'failed', error: failureMessage(err) };
  }
}
