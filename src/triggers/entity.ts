import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../common/base-entity.ts';
import { Execution } from '../executions/entity.ts';
import { Workspace } from '../workspaces/entity.ts';

/**
 * A customer reply still to be passed to an open execution of its ticket (a run may be waiting
 * for it in wait_for_reply). Written with the delivery of the message_received event, in the
 * same transaction, and kept until Temporal has acknowledged the signal: a reply reaches its
 * runs whatever was down when it arrived.
 */
const ReplySignalSchema = defineEntity({
  name: 'ReplySignal',
  tableName: 'reply_signals',
  properties: {
    execution: () => p.manyToOne(Execution).mapToPk().primary().deleteRule('cascade'),
    messageId: p.uuid().primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    /** When the customer wrote the reply: a run counts it only if it was waiting then. */
    messageAt: p.datetime(3),
    temporalWorkflowId: p.string().length(300),
    createdAt: createdAt(),
    deliveredAt: p.datetime(3).nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
  indexes: [
    {
      name: 'reply_signals_undelivered_idx',
      expression: 'create index "reply_signals_undelivered_idx" on "reply_signals" ("created_at") where "delivered_at" is null',
    },
  ],
});
export class ReplySignal extends ReplySignalSchema.class {}
ReplySignalSchema.setClass(ReplySignal);
