import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { businessDeadline } from '../calendars/runs.ts';
import { RunBookkeeping, type StepRecord } from '../executions/bookkeeping.ts';
import { Execution } from '../executions/entity.ts';
import { AppError } from '../errors.ts';
import type { ApprovalQuorum } from '../graph/index.ts';
import { Approval, type ApprovalStatus } from './entity.ts';
import { decidedBy } from './rules.ts';

// What runs do with approvals, outside the workflow sandbox (the activities call these): ask,
// read the outcome or expire at the time-out, and cancel with the run.

/** A request_approval node as the run reaches it: the question rendered, the time-out as the node gives it. */
export type ApprovalRequest = {
  executionId: string;
  workspaceId: string;
  workflowId: string;
  ticketId: string | null;
  nodeId: string;
  seq?: number;
  question: string;
  approvers: string[];
  quorum: ApprovalQuorum;
  timeoutSeconds?: number;
  calendarId?: string;
  /** When the run reached the node (ISO 8601): the time-out counts from here. */
  startedAt: string;
};

/** The approval the run waits for, and when it expires (ISO 8601; null: no time-out). */
export type AskedApproval = { approvalId: string; dueAt: string | null; calendarName?: string };

/** Where an approval ended, as the run reads it. */
export type ApprovalOutcome = { status: ApprovalStatus; decidedBy: string[] };

/**
 * The approval of this node of this run, pending, with its due time (counted in the calendar's
 * open time with calendarId, as business-time waits are), and the node's step waiting for it, in
 * one transaction with the steps walked before it. Asked again (a retried activity), it answers
 * the approval made the first time.
 */
export async function requestApproval(em: EntityManager, input: ApprovalRequest, walked: StepRecord[]): Promise<AskedApproval> {
  return em.transactional(async (tx) => {
    const earlier = await tx.findOne(Approval, { execution: input.executionId, nodeId: input.nodeId });
    if (earlier) return { approvalId: earlier.id, dueAt: earlier.dueAt?.toISOString() ?? null };
    let dueAt: Date | null = null;
    let calendarName: string | undefined;
    if (input.timeoutSeconds !== undefined && input.calendarId !== undefined) {
      const deadline = await businessDeadline(tx, { workspaceId: input.workspaceId, calendarId: input.calendarId, from: input.startedAt, seconds: input.timeoutSeconds });
      dueAt = new Date(deadline.until);
      calendarName = deadline.calendarName;
    } else if (input.timeoutSeconds !== undefined) {
      dueAt = new Date(Date.parse(input.startedAt) + Math.round(input.timeoutSeconds * 1000));
    }
    const execution = await tx.findOne(Execution, { id: input.executionId }, { fields: ['temporalWorkflowId'] });
    if (!execution) throw new AppError(404, 'not_found', 'The execution is gone.');
    const approval = tx.create(Approval, {
      workspace: input.workspaceId,
      execution: input.executionId,
      workflow: input.workflowId,
      ticketId: input.ticketId,
      nodeId: input.nodeId,
      question: input.question,
      approvers: input.approvers,
      quorum: input.quorum,
      status: 'pending',
      decisions: [],
      dueAt,
      decidedAt: null,
      temporalWorkflowId: execution.temporalWorkflowId,
      signalError: null,
    });
    const step: StepRecord = { nodeId: input.nodeId, seq: input.seq, status: 'waiting', result: { approvalId: approval.id }, startedAt: new Date(input.startedAt), completedAt: null, until: dueAt };
    await tx.flush();
    await new RunBookkeeping(tx).recordSteps(input.executionId, [...walked, step], tx);
    return { approvalId: approval.id, dueAt: dueAt?.toISOString() ?? null, ...(calendarName !== undefined ? { calendarName } : {}) };
  });
}

/**
 * Where the approval stands, read under its row lock. With `expire` (the run's time-out came)
 * a pending one expires now; one decided meanwhile stays as decided: the decision won the race.
 */
export async function settleApproval(em: EntityManager, input: { approvalId: string; expire: boolean }): Promise<ApprovalOutcome> {
  return em.transactional(async (tx) => {
    const approval = await tx.findOne(Approval, { id: input.approvalId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!approval) throw new AppError(404, 'not_found', 'The approval is gone.');
    if (input.expire && approval.status === 'pending') Object.assign(approval, { status: 'expired', decidedAt: new Date() });
    return { status: approval.status, decidedBy: decidedBy(approval.status, approval.decisions) };
  });
}

/** The run ended (cancelled, or failed elsewhere) while its approvals waited: they are cancelled. */
export async function cancelApprovalsOf(em: EntityManager, executionId: string, at = new Date()): Promise<number> {
  return em.nativeUpdate(Approval, { execution: executionId, status: 'pending' }, { status: 'cancelled', decidedAt: at });
}
