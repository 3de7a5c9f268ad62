import { defineSignal } from '@temporalio/workflow';

/** Sent to a ticket's running executions when its customer replies (an emitted TICKET_MESSAGE_ADDED). */
export const customerReplied = defineSignal<[{ messageId: string }]>('customerReplied');
