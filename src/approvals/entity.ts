import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Execution } from '../executions/entity.ts';
import { APPROVAL_QUORUMS } from '../graph/index.ts';
import { Ticket } from '../tickets/entity.ts';
import { Workflow } from '../workflows/entity.ts';
import { Workspace } from '../workspaces/entity.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Who asked: a run's request_approval node, or the AI owner about one of its drafts (autoSend false). */
export const APPROVAL_SOURCES = ['run', 'ai_owner'] as const;
export type ApprovalSource = (typeof APPROVAL_SOURCES)[number];

export const DECISIONS = ['approve', 'reject'] as const;
export type Decision = (typeof DECISIONS)[number];

/** One approver's answer, as given. */
export type DecisionRecord = { userId: string; decision: Decision; comment: string | null; at: string };

/**
 * A question to named people, and their answers. Asked by a run when it reaches a
 * request_approval node (source `run`), one per (execution, node), expired by the run's timer,
 * cancelled with its run, kept as long as its execution; or by the AI owner about a draft reply
 * (source `ai_owner`, autoSend false; src/ai/drafts.ts), one per draft, with no workflow,
 * execution or node, cancelled when a newer draft replaces it, kept as long as its ticket.
 * Decided by POST /api/approvals/:id/decision. The foreign keys cascade.
 *
 * `signalPending` is the decision's way to the waiting run: set in the transaction that decides
 * the approval, cleared once Temporal has acknowledged the signal (src/approvals/signals.ts),
 * so that an outage delays the run but never loses the decision.
 */
const ApprovalSchema = defineEntity({
  name: 'Approval',
  tableName: 'approvals',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    source: p.enum(APPROVAL_SOURCES).default('run'),
    execution: () => p.manyToOne(Execution).mapToPk().nullable().deleteRule('cascade'),
    workflow: () => p.manyToOne(Workflow).mapToPk().nullable().deleteRule('cascade'),
    ticketId: p.uuid().nullable(),
    nodeId: p.string().length(100).nullable(),
    /** The AI owner's draft (an ai_turns row) it asks about; null for a run's. */
    draftId: p.uuid().nullable(),
    /** The ticket of that draft (ticketId again): the approval goes with the ticket. Null for a run's, which goes with its execution. */
    aiTicket: () => p.manyToOne(Ticket).mapToPk().nullable().deleteRule('cascade'),
    /** The node's question, rendered when the run asked; the draft's text, introduced, for the AI owner's. */
    question: p.text(),
    approvers: p.array(),
    quorum: p.enum(APPROVAL_QUORUMS),
    status: p.enum(APPROVAL_STATUSES),
    decisions: p.json<DecisionRecord[]>(),
    dueAt: p.datetime(3).nullable(),
    decidedAt: p.datetime(3).nullable(),
    /** The run to wake: its Temporal workflow id (none for the AI owner's: its decision is applied where it is recorded). */
    temporalWorkflowId: p.string().length(300).nullable(),
    signalPending: p.boolean().default(false),
    signalAttempts: p.integer().default(0),
    signalError: p.text().nullable(),
  },
  uniques: [{ name: 'approvals_execution_node_unique', properties: ['execution', 'nodeId'] }],
  indexes: [
    {
      // One approval per draft, found by it when a newer draft replaces it or a person sends it.
      name: 'approvals_draft_unique',
      expression: 'create unique index "approvals_draft_unique" on "approvals" ("draft_id") where "draft_id" is not null',
    },
    {
      // The list, newest first (GET /api/approvals).
      name: 'approvals_workspace_created_idx',
      expression: 'create index "approvals_workspace_created_idx" on "approvals" ("workspace_id", "created_at" desc, "id" desc)',
    },
    {
      // The pending ones, newest first, and their count for GET /metrics.
      name: 'approvals_pending_idx',
      expression: 'create index "approvals_pending_idx" on "approvals" ("workspace_id", "created_at" desc, "id" desc) where "status" = \'pending\'',
    },
    {
      // ?approver=: the approvals that ask one person.
      name: 'approvals_approvers_idx',
      expression: 'create index "approvals_approvers_idx" on "approvals" using gin ("approvers")',
    },
    {
      // Decisions whose signal Temporal has not acknowledged yet, oldest first.
      name: 'approvals_signal_pending_idx',
      expression: 'create index "approvals_signal_pending_idx" on "approvals" ("decided_at") where "signal_pending"',
    },
  ],
});
export class Approval extends ApprovalSchema.class {}
ApprovalSchema.setClass(Approval);
