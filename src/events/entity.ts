import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Workspace } from '../workspaces/entity.ts';

/**
 * What the outbox records. All but `message_added` and `note_added` are the workflow trigger
 * types of the same names;
 * `message_added` (a message that is no customer reply: an agent's or an automation's reply,
 * mail from someone else) and `note_added` (an internal note) are for what follows tickets
 * (the search index, the live feed, the service-level clocks): no workflow listens to them.
 * `sla_warning`, `sla_breached`: a target of a ticket's service level at its warning or due
 * time, `{ ticket, sla: { policyId, policyName, metric, dueAt } }`, written once per target and
 * cycle by the ticket's timers (src/sla/timers.ts).
 */
export const EVENT_TYPES = ['ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'message_added', 'note_added', 'sla_warning', 'sla_breached'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A row of the transactional outbox: written in the same transaction as the change it
 * describes, delivered to the workflow engine afterwards by the relay.
 */
const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    type: p.enum(EVENT_TYPES),
    ticketId: p.uuid().nullable(),
    payload: p.json<Record<string, unknown>>(),
    /** Set once every matching workflow has been started for this event. */
    deliveredAt: p.datetime(3).nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
    /**
     * The writing transaction's id (a column default: no writer sets it). The event feed reads
     * in (txid, created_at, id) order, only below the oldest transaction still running, so an
     * event a long transaction commits late is never passed over (src/feed/store.ts). Null on
     * rows written before the column existed: they come before every cursor.
     */
    txid: p.string().columnType('xid8').nullable().defaultRaw('pg_current_xact_id()').lazy(),
  },
  // Wakes the relay at once (LISTEN deskflow_outbox) for writers that do not after their commit
  // (src/common/commit-signals.ts). Created with its function by a migration;
  // declared here so that the schema diff (`npm run migration:create`) keeps it.
  triggers: [
    {
      name: 'outbox_events_notify',
      timing: 'after',
      events: ['insert'],
      forEach: 'statement',
      expression: 'create trigger "outbox_events_notify" after insert on "outbox_events" for each statement execute function "deskflow_notify_outbox"()',
    },
  ],
  indexes: [
    { name: 'outbox_events_ticket_type_created_idx', properties: ['ticketId', 'type', 'createdAt'] },
    // Backtests read a workspace's events of one type in a time window, oldest first, in keyset pages.
    { name: 'outbox_events_workspace_type_created_idx', properties: ['workspace', 'type', 'createdAt', 'id'] },
    {
      name: 'outbox_events_undelivered_idx',
      expression: 'create index "outbox_events_undelivered_idx" on "outbox_events" ("created_at") where "delivered_at" is null',
    },
    // The relay purges delivered events past their retention, oldest first (OUTBOX_RETENTION_DAYS).
    {
      name: 'outbox_events_delivered_idx',
      expression: 'create index "outbox_events_delivered_idx" on "outbox_events" ("created_at") where "delivered_at" is not null',
    },
    // The event feed's order and cursor (GET /api/v1/events).
    { name: 'outbox_events_feed_idx', properties: ['txid', 'createdAt', 'id'] },
    // Counts the deliveries the loop guard stopped for GET /metrics without reading the table.
    {
      name: 'outbox_events_loop_guard_idx',
      expression: 'create index "outbox_events_loop_guard_idx" on "outbox_events" ("created_at") where "last_error" like \'loop guard:%\'',
    },
  ],
});
export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);
