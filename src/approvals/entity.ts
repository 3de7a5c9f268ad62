import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import { Execution } from '../executions/entity.ts';
import { APPROVAL_QUORUMS } from '../graph/index.ts';
import { Workflow } from '../workflows/entity.ts';
import { Workspace } from '../workspaces/entity.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const DECISIONS = ['approve', 'reject'] as const;
export type Decision = (typeof DECISIONS)[number];

/** One approver's answer, as given. */
export type DecisionRecord = { userId: string; decision: Decision; comment: string | null; at: string };

/**
 * A run's question to named people (a request_approval node), and their answers. Created by the
 * run when it reaches the node, one per (execution, node); decided by POST
 * /api/approvals/:id/decision, expired by the run's timer, cancelled with its run. Kept as long
 * as its execution: the foreign key cascades.
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
    execution: () => p.manyToOne(Execution).mapToPk().deleteRule('cascade'),
    workflow: () => p.manyToOne(Workflow).mapToPk().deleteRule('cascade'),
    ticketId: p.uuid().nullable(),
    nodeId: p.string().length(100),
    /** The node's question, rendered when the run asked. */
    question: p.text(),
    approvers: p.array(),
    quorum: p.enum(APPROVAL_QUORUMS),
    status: p.enum(APPROVAL_STATUSES),
    decisions: p.json<DecisionRecord[]>(),
    dueAt: p.datetime(3).nullable(),
    decidedAt: p.datetime(3).nullable(),
    /** The run to wake: its Temporal workflow id. */
    temporalWorkflowId: p.string().length(300),
    signalPending: p.boolean().default(false),
    signalAttempts: p.integer().default(0),
    signalError: p.text().nullable(),
  },
  uniques: [{ name: 'approvals_execution_node_unique', properties: ['execution', 'nodeId'] }],
  indexes: [
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
