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

/** When a ticket's service-level timers fire: a target's warning or breach, in its cycle (src/sla/instants.ts). */
export type SlaInstant = { metric: 'first_reply' | 'next_reply' | 'resolution'; cycle: number; kind: 'warning' | 'breach'; at: string };

/**
 * Sent to a ticket's slaClocks workflow by the relay whenever the instants its targets fire at
 * move: all of them, as of a revision of the ticket's clocks; an older revision than the one the
 * workflow holds is ignored (signals may arrive out of order after an outage).
 */
export const slaInstantsChanged = defineSignal<[{ revision: number; instants: SlaInstant[] }]>('slaInstantsChanged');
