import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import type { ConditionData, TicketStatus } from '../graph/index.ts';
import { Workspace } from '../workspaces/entity.ts';
import type { PolicyTarget } from './clock.ts';

/**
 * A service level policy (docs/sla.md): which tickets it governs (`match`), in which order it is
 * tried (`position`), the targets per metric and priority, the calendar whose open time they
 * count (none: calendar time) and the statuses during which resolution stops counting.
 */
const SlaPolicySchema = defineEntity({
  name: 'SlaPolicy',
  tableName: 'sla_policies',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    name: p.string().length(200),
    description: p.text().nullable(),
    isActive: p.boolean().default(true),
    /** Policies are tried by position, then age; the first whose match holds governs the ticket. */
    position: p.integer(),
    /** A condition of the workflow language over ticket.*; null: every ticket. */
    match: p.json<ConditionData>().nullable(),
    /** A calendar of the workspace whose open time the targets count; null: calendar time. */
    calendarId: p.uuid().nullable(),
    targets: p.json<PolicyTarget[]>(),
    /** Statuses during which resolution stops counting. */
    pauseOn: p.json<TicketStatus[]>(),
    updatedAt: p.datetime(3).onCreate((c: { createdAt?: Date }) => c.createdAt ?? new Date()),
    /** Deleted policies are gone from the API; rows stay, so tickets they governed keep naming them. */
    deletedAt: p.datetime(3).nullable(),
  },
  indexes: [
    {
      name: 'sla_policies_workspace_order_idx',
      expression: 'create index "sla_policies_workspace_order_idx" on "sla_policies" ("workspace_id", "position", "created_at", "id") where "deleted_at" is null',
    },
  ],
});
export class SlaPolicy extends SlaPolicySchema.class {}
SlaPolicySchema.setClass(SlaPolicy);
