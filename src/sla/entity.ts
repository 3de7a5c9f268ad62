import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, createdAt } from '../common/base-entity.ts';
import { TICKET_PRIORITIES, type ConditionData, type TicketStatus } from '../graph/index.ts';
import { Ticket } from '../tickets/entity.ts';
import { Workspace } from '../workspaces/entity.ts';
import { SLA_METRICS, TARGET_STATUSES, type ClockState, type PolicyTarget } from './clock.ts';

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

/**
 * What a policy said about time, as a ticket's clocks counted with it: its targets, pause
 * statuses and calendar definition, named by a hash of them (content-addressed: the same terms
 * are one row). A ticket's state names the terms in force since its last event, so that a later
 * change of the policy or its calendar counts the time before it with the terms of then.
 */
const SlaTermsSchema = defineEntity({
  name: 'SlaTerms',
  tableName: 'sla_terms',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    terms: p.json<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
});
export class SlaTerms extends SlaTermsSchema.class {}
SlaTermsSchema.setClass(SlaTerms);

/**
 * A ticket's clocks (src/sla/clock.ts), folded by the relay from the ticket's outbox events:
 * the policy that governs it (null: none does any more), the terms in force and the state. The
 * timers of the ticket's Temporal workflow (slaClocks) follow `revision`, which goes up when its
 * fire instants change; until Temporal has acknowledged a revision, `signalledRevision` is behind
 * and the relay signals it again (docs/sla.md, "Timers").
 */
const TicketSlaSchema = defineEntity({
  name: 'TicketSla',
  tableName: 'ticket_slas',
  properties: {
    ticket: () => p.manyToOne(Ticket).mapToPk().primary().deleteRule('cascade'),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    policyId: p.uuid().nullable(),
    termsId: p.string().length(64).nullable(),
    state: p.json<ClockState>().nullable(),
    revision: p.integer().default(0),
    signalledRevision: p.integer().default(0),
    signalAttempts: p.integer().default(0),
    lastSignalError: p.text().nullable(),
    updatedAt: p.datetime(3),
  },
  indexes: [
    {
      name: 'ticket_slas_unsignalled_idx',
      expression: 'create index "ticket_slas_unsignalled_idx" on "ticket_slas" ("updated_at") where "revision" <> "signalled_revision"',
    },
  ],
});
export class TicketSla extends TicketSlaSchema.class {}
TicketSlaSchema.setClass(TicketSla);

/**
 * Each target of a governed ticket as of the relay's last fold (the latest cycle of each metric):
 * what the queue of what breaks next reads (nearest due first, per workspace and status) and what
 * the timers fire on. `warningSentAt` and `breachSentAt` record the sla_warning and sla_breached
 * events written for this cycle.
 */
const SlaTargetSchema = defineEntity({
  name: 'SlaTarget',
  tableName: 'sla_targets',
  properties: {
    ticket: () => p.manyToOne(Ticket).mapToPk().primary().deleteRule('cascade'),
    metric: p.enum(SLA_METRICS).primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    priority: p.enum(TICKET_PRIORITIES),
    cycle: p.integer(),
    status: p.enum(TARGET_STATUSES),
    startedAt: p.datetime(3),
    dueAt: p.datetime(3).nullable(),
    warnAt: p.datetime(3).nullable(),
    pausedSeconds: p.integer(),
    fulfilledAt: p.datetime(3).nullable(),
    breachedAt: p.datetime(3).nullable(),
    warningSentAt: p.datetime(3).nullable(),
    breachSentAt: p.datetime(3).nullable(),
    updatedAt: p.datetime(3),
  },
  indexes: [
    // The queue: running targets of a workspace by status, nearest due first.
    {
      name: 'sla_targets_queue_idx',
      expression: 'create index "sla_targets_queue_idx" on "sla_targets" ("workspace_id", "status", "due_at", "ticket_id", "metric") where "fulfilled_at" is null',
    },
  ],
});
export class SlaTarget extends SlaTargetSchema.class {}
SlaTargetSchema.setClass(SlaTarget);

/**
 * A pass that chooses the policy of each of a workspace's unsolved tickets again, asked for by a
 * change of its policies or of a calendar they count (at `requestedAt`), and where it stands:
 * tickets are taken status by status (`phase`), newest first, a batch at a time.
 */
const SlaPassSchema = defineEntity({
  name: 'SlaPass',
  tableName: 'sla_passes',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    requestedAt: p.datetime(3),
    phase: p.string().length(20),
    cursorCreatedAt: p.datetime(3).nullable(),
    cursorId: p.uuid().nullable(),
    updatedAt: p.datetime(3),
  },
});
export class SlaPass extends SlaPassSchema.class {}
SlaPassSchema.setClass(SlaPass);

/**
 * How many targets breached, per workspace, metric and priority: counted by the timers in the
 * transaction that writes the sla_breached event, and read by GET /metrics as
 * deskflow_sla_breaches_total (a counter that never goes down, whatever is purged).
 */
const SlaBreachCountSchema = defineEntity({
  name: 'SlaBreachCount',
  tableName: 'sla_breach_counts',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    metric: p.enum(SLA_METRICS).primary(),
    priority: p.enum(TICKET_PRIORITIES).primary(),
    count: p.bigint('number').default(0),
  },
});
export class SlaBreachCount extends SlaBreachCountSchema.class {}
SlaBreachCountSchema.setClass(SlaBreachCount);
