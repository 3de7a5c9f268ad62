import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AfterCommit } from '../common/after-commit.ts';
import { findOr404 } from '../common/find-or-404.ts';
import { conflict, forbidden, validationFailed } from '../errors.ts';
import type { WorkflowEngine } from '../executions/engine.ts';
import { isUuid } from '../ids.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Member } from '../workspaces/entity.ts';
import { Approval, type DecisionRecord } from './entity.ts';
import { outcomeOf } from './rules.ts';
import type { DecisionInput, ListApprovalsQuery } from './schema.ts';
import { ApprovalSignals } from './signals.ts';

/**
 * What a decided approval of the AI owner (source `ai_owner`) does to its draft, applied in the
 * transaction that records the decision (wired in src/services.ts; src/ai/drafts.ts): sent when
 * approved, discarded with a hand-off when rejected.
 */
export type DraftDecisions = {
  /** Takes the ticket's lock, before the approval's: the owner's run and the drafts route take them in that order. */
  lockTicket(em: EntityManager, approval: Approval): Promise<void>;
  apply(em: EntityManager, approval: Approval, decision: DecisionRecord, afterCommit: AfterCommit): Promise<void>;
};

/**
 * The approvals of a workspace as the API shows them, and their decisions (docs/api.md,
 * "Approvals"). Runs create, expire and cancel theirs (runs.ts); the AI owner its drafts' (drafts.ts).
 */
export class ApprovalService {
  private readonly em: EntityManager;
  private readonly signals: ApprovalSignals | undefined;
  private readonly afterCommit: AfterCommit | undefined;
  private readonly logger: Logger | undefined;
  private readonly drafts: DraftDecisions | undefined;

  constructor(em: EntityManager, deps: { engine?: WorkflowEngine; afterCommit?: AfterCommit; logger?: Logger; drafts?: DraftDecisions } = {}) {
    this.em = em;
    this.signals = deps.engine ? new ApprovalSignals({ engine: deps.engine, logger: deps.logger }) : undefined;
    this.afterCommit = deps.afterCommit;
    this.logger = deps.logger;
    this.drafts = deps.drafts;
  }

  async get(workspaceId: string, approvalId: string): Promise<Approval> {
    return findOr404(this.em, Approval, approvalId, { workspace: workspaceId }, 'Approval');
  }

  /** Newest first; of one status, asking one person, older than the approval `before`. */
  async list(workspaceId: string, query: ListApprovalsQuery): Promise<Approval[]> {
    const where: Record<string, unknown> = { workspace: workspaceId };
    if (query.status) where.status = query.status;
    if (query.approver !== undefined) where.approvers = { $contains: [query.approver] };
    if (query.before !== undefined) {
      const cursor = isUuid(query.before) ? await this.em.findOne(Approval, { workspace: workspaceId, id: query.before }, { fields: ['createdAt'] }) : null;
      if (!cursor) throw validationFailed([{ path: 'before', message: 'before must be the id of an approval of this workspace.' }]);
      where.$or = [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }];
    }
    return this.em.find(Approval, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: query.limit });
  }

  /**
   * Records one approver's decision, under the approval's row lock: a 403 for someone who is not
   * among its approvers or no longer a member or admin, a 409 when it is no longer pending or
   * they have decided already. Answers the approval as it stands after the decision. When this
   * decision decides a run's approval, the waiting run is signalled once the transaction has
   * committed (or by the relay, should Temporal not take it now): the decision is never lost, nor
   * applied twice. A decision that decides an AI owner's approval is applied to its draft in the
   * same transaction (no run waits for it): committed together, or not at all.
   */
  async decide(workspaceId: string, approvalId: string, input: DecisionInput): Promise<Approval> {
    const deferred: Array<(em: EntityManager) => Promise<void>> = [];
    const afterCommit: AfterCommit = this.afterCommit ?? ((task) => deferred.push(task));
    const approval = await this.em.transactional(async (em) => {
      const seen = await findOr404(em, Approval, approvalId, { workspace: workspaceId }, 'Approval');
      const drafts = seen.source === 'ai_owner' ? this.drafts : undefined;
      if (seen.source === 'ai_owner' && !drafts) throw new Error('The AI owner\'s drafts are not wired into this ApprovalService.');
      if (drafts) await drafts.lockTicket(em, seen);
      const approval = await em.refresh(seen, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!approval) throw new Error('The approval vanished under its lock.');
      const who = JSON.stringify(input.userId);
      if (!approval.approvers.includes(input.userId)) {
        throw forbidden(`${who} is not among the approvers of this approval (${approval.approvers.map((a) => JSON.stringify(a)).join(', ')}).`);
      }
      if ((await em.count(Member, { workspace: workspaceId, userId: input.userId })) === 0) {
        throw forbidden(`${who} is no longer a member or admin of this workspace, so cannot decide.`);
      }
      if (approval.status !== 'pending') {
        const since = approval.decidedAt ? ` since ${approval.decidedAt.toISOString()}` : '';
        throw conflict('approval_not_pending', `The approval is no longer pending: it is ${approval.status}${since}.`);
      }
      const earlier = approval.decisions.find((d) => d.userId === input.userId);
      if (earlier) throw conflict('already_decided', `${who} has already decided: ${earlier.decision} at ${earlier.at}.`);
      const now = new Date();
      const decision: DecisionRecord = { userId: input.userId, decision: input.decision, comment: input.comment ?? null, at: now.toISOString() };
      approval.decisions = [...approval.decisions, decision];
      const status = outcomeOf(approval.quorum, approval.approvers, approval.decisions);
      if (status !== 'pending') Object.assign(approval, { status, decidedAt: now, signalPending: approval.source === 'run' });
      if (status !== 'pending' && drafts) await drafts.apply(em, approval, decision, afterCommit);
      return approval;
    });
    for (const task of deferred) await task(this.em);
    if (approval.signalPending) {
      const wake = (em: EntityManager) => this.wakeRun(em, approval.id);
      if (this.afterCommit) this.afterCommit(wake);
      else await wake(this.em);
    }
    return approval;
  }

  /** Best effort: a signal Temporal does not take now stays pending for the relay. */
  private async wakeRun(em: EntityManager, approvalId: string): Promise<void> {
    if (!this.signals) return; // the relay signals it
    try {
      await this.signals.signal(em.fork(), approvalId);
    } catch (err) {
      this.logger?.warn('approval decision not signalled now; the relay will', { approvalId, ...errorFields(err) });
    }
  }
}
