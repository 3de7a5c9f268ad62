import { defineEntity, p } from '@mikro-orm/core';
import { countTriggers } from '../common/count-triggers.ts';
import { BaseEntity } from '../common/base-entity.ts';
import { Workspace } from '../workspaces/entity.ts';
import { PRIORITIES, RESOLUTION_TYPES, SOURCES, STATUSES } from './values.ts';

const TicketSchema = defineEntity({
  name: 'Ticket',
  tableName: 'tickets',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    subject: p.text(),
    status: p.enum(STATUSES),
    priority: p.enum(PRIORITIES),
    customerEmail: p.string().length(320),
    customerName: p.string().length(200).nullable(),
    source: p.enum(SOURCES),
    assignedTo: p.string().length(200).nullable(),
    resolutionType: p.enum(RESOLUTION_TYPES).nullable(),
    tags: p.array().default([]),
    language: p.string().length(3).nullable(),
    /** Last per-ticket message sequence number handed out; gives messages a stable order. */
    messageSeq: p.integer().default(0),
    updatedAt: p.datetime(3).onCreate((t: { createdAt?: Date }) => t.createdAt ?? new Date()),
  },
  // Keep ticket_counts and ticket_filter_counts (src/tickets/counts.ts).
  triggers: countTriggers('tickets', 'deskflow_count_tickets'),
  indexes: [
    { name: 'tickets_workspace_created_idx', expression: 'create index "tickets_workspace_created_idx" on "tickets" ("workspace_id", "created_at" desc, "id" desc)' },
    { name: 'tickets_workspace_status_created_idx', expression: 'create index "tickets_workspace_status_created_idx" on "tickets" ("workspace_id", "status", "created_at" desc, "id" desc)' },
    // The list's filters and sorts (src/tickets/list.ts), where page 1 or the total would
    // otherwise read the whole workspace. Partial where a plain create does not need them: a
    // new ticket has no assignee and no tags.
    { name: 'tickets_workspace_updated_idx', expression: 'create index "tickets_workspace_updated_idx" on "tickets" ("workspace_id", "updated_at" desc, "id" desc)' },
    { name: 'tickets_workspace_customer_idx', expression: 'create index "tickets_workspace_customer_idx" on "tickets" ("workspace_id", lower("customer_email"))' },
    {
      name: 'tickets_workspace_assignee_idx',
      expression:
        'create index "tickets_workspace_assignee_idx" on "tickets" ("workspace_id", "assigned_to", "created_at" desc, "id" desc) where "assigned_to" is not null',
    },
    { name: 'tickets_tags_idx', expression: 'create index "tickets_tags_idx" on "tickets" using gin ("tags") where "tags" <> \'{}\'' },
  ],
});
export class Ticket extends TicketSchema.class {}
TicketSchema.setClass(Ticket);
