import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { retryUntilAcknowledged } from '../common/retry-until-acknowledged.ts';
import type { WorkflowEngine } from '../executions/engine.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Approval } from './entity.ts';

/*
 * A decision's way to the run that waits for it (request_approval), end to end:
 *   1. ApprovalService.decide (service.ts) records the decision under the approval's row lock;
 *      when it decides the approval, the same transaction marks its signal pending.
 *   2. Right after the commit the API hands the signal to Temporal (ApprovalSignals.signal);
 *      if Temporal does not take it, the relay's passes do (signalPending), until it is
 *      acknowledged (src/common/retry-until-acknowledged.ts). A signal is a wake-up only: a
 *      second one is harmless.
 *   3. runAutomation's approvalDecided handler (temporal/workflows/) notes the approval; the
 *      run reads its outcome from the row (settleApproval, runs.ts), the source of truth.
 */

/** Hands decided approvals' signals to their runs until Temporal acknowledges each one. */
export class ApprovalSignals {
  private readonly engine: WorkflowEngine;
  private readonly logger: Logger | undefined;

  constructor(deps: { engine: WorkflowEngine; logger?: Logger }) {
    this.engine = deps.engine;
    this.logger = deps.logger;
  }

  /** Right after the decision committed: this approval's signal, unless another process took it meanwhile. */
  async signal(em: EntityManager, approvalId: string): Promise<void> {
    await this.pass(em, 1, { id: approvalId });
  }

  /** Up to `limit` pending signals (of the given workspaces, or all), oldest decision first; returns how many it claimed. */
  async signalPending(em: EntityManager, limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    return (await this.pass(em, limit, workspaceIds ? { workspace: { $in: workspaceIds } } : {})).claimed;
  }

  private pass(em: EntityManager, limit: number, where: Record<string, unknown>) {
    return retryUntilAcknowledged<Approval>(
      em,
      limit,
      {
        what: 'approval decisions',
        claim: (tx, limit) =>
          tx.find(Approval, { signalPending: true, ...where }, { orderBy: { decidedAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked: processes share the work */ }),
        handOff: async (approval) => {
          approval.signalAttempts += 1;
          // Only a run's approvals have a signal pending (the AI owner's are applied where decided).
          if (!approval.temporalWorkflowId) return;
          await this.engine.signalApprovalDecided(approval.temporalWorkflowId, { approvalId: approval.id });
        },
        acknowledge: async (_tx, approvals) => {
          for (const approval of approvals) Object.assign(approval, { signalPending: false, signalError: null });
        },
        noteFailure: async (_tx, failed) => {
          for (const { row, error } of failed) row.signalError = errorFields(error).error;
        },
        describe: (approval) => ({ approvalId: approval.id, temporalWorkflowId: approval.temporalWorkflowId }),
      },
      this.logger,
    );
  }
}

/** The relay's view of it: a fresh unit of work per pass. */
export function pendingDecisions(deps: { orm: MikroORM; engine: WorkflowEngine; logger: Logger }) {
  const signals = new ApprovalSignals(deps);
  return { signalPending: (limit: number, workspaceIds?: string[]) => signals.signalPending(deps.orm.em.fork(), limit, workspaceIds) };
}
