import { defineSignal } from '@temporalio/workflow';

/**
 * Sent to a ticket's open executions when its customer replies (an emitted
 * TICKET_MESSAGE_ADDED): the message and when it was written (ISO 8601), so that a run counts
 * only replies written while it waited, however late the signal arrives. Runs started before
 * `at` was sent count every signal.
 */
export const customerReplied = defineSignal<[{ messageId: string; at?: string }]>('customerReplied');

/**
 * Sent to a run when a decision decided one of its approvals (request_approval), once the
 * decision has committed: a wake-up only. The run reads the approval's outcome from the
 * database, so a signal sent twice, or late, changes nothing.
 */
export const approvalDecided = defineSignal<[{ approvalId: string }]>('approvalDecided');
