import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { Execution, ExecutionStep, type ExecutionStatus, type StepStatus } from './entity.ts';

export type StepRecord = {
  nodeId: string;
  /** Position in the run's walk. */
  seq?: number;
  status: StepStatus;
  result?: unknown;
  startedAt: Date;
  completedAt: Date | null;
  error?: string | null;
  /** Of a wait: when it ends. */
  until?: Date | null;
};

/** What a run writes about itself while it runs: its status, each node's step and its end. */
export class RunBookkeeping {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * The one way a run begins: pending → running, with the steps walked before its first effect.
   * Answers the status afterwards (`cancelled` when it was cancelled before it began; null when
   * it is gone) and whether it was pending until now (`fresh`: nothing of it has taken effect
   * before). Each statement stands alone and is safe to repeat (a retry finds the run running
   * and records the same steps again), so no transaction is needed: one statement where a run
   * begins, as most do, from the state it was created in. Within a caller's transaction with
   * `em`. With `endingAt` a pending run goes straight to completed at that instant: the
   * caller's transaction holds the whole rest of the run (runActions taking its last nodes).
   */
  async begin(executionId: string, opts: { steps?: StepRecord[]; em?: EntityManager; endingAt?: Date } = {}): Promise<{ status: ExecutionStatus | null; fresh: boolean }> {
    const { steps = [], em = this.em, endingAt = null } = opts;
    const left = await sql(
      em,
      `update "executions" set "status" = $2, "completed_at" = $3, "dispatched_at" = coalesce("dispatched_at", now()) where "id" = $1 and "status" = 'pending' returning "id"`,
      [executionId, endingAt ? 'completed' : 'running', endingAt],
    );
    const fresh = left.length > 0;
    const status = fresh ? (endingAt ? 'completed' : 'running') : await this.statusOf(executionId, em);
    if (status === 'running') await this.recordSteps(executionId, steps, em);
    return { status, fresh };
  }

  private async statusOf(executionId: string, em: EntityManager): Promise<ExecutionStatus | null> {
    const [row] = await sql<{ status: ExecutionStatus }>(em, 'select "status" from "executions" where "id" = $1', [executionId]);
    return row?.status ?? null;
  }

  /** Whether any of these nodes' steps completed (an action taken by an earlier attempt). */
  async anyCompleted(executionId: string, nodeIds: string[], em: EntityManager = this.em): Promise<boolean> {
    const rows = await sql(em, `select 1 from "execution_steps" where "execution_id" = $1 and "node_id" = any($2) and "status" = 'completed' limit 1`, [executionId, nodeIds]);
    return rows.length > 0;
  }

  /** Records (or updates) steps by node: a step moves from waiting to completed, never duplicates. */
  async recordSteps(executionId: string, steps: StepRecord[], em: EntityManager = this.em): Promise<void> {
    if (steps.length === 0) return;
    await em.upsertMany(
      ExecutionStep,
      steps.map((step) => ({
        execution: executionId,
        nodeId: step.nodeId,
        seq: step.seq ?? null,
        status: step.status,
        result: step.result ?? null,
        startedAt: step.startedAt,
        completedAt: step.completedAt,
        error: step.error ?? null,
        // A wait records its deadline with its waiting step and again when it completes.
        until: step.until ?? null,
      })),
      { onConflictFields: ['execution', 'nodeId'], onConflictAction: 'merge' },
    );
  }

  async findStep(executionId: string, nodeId: string, em: EntityManager = this.em): Promise<ExecutionStep | null> {
    return em.findOne(ExecutionStep, { execution: executionId, nodeId });
  }

  /**
   * The one way a run ends: records its end; an execution that already ended keeps its first
   * outcome. A step still waiting (a delay or wait_for_reply cut short by a cancel or by a
   * failure on another branch) ends with it, as cancelled with the reason: no finished execution
   * shows a step waiting. `at` (now unless given) is when it ended; within a caller's
   * transaction with `em`.
   */
  async finish(executionId: string, status: 'completed' | 'failed' | 'cancelled', error: string | null, steps: StepRecord[] = [], opts: { em?: EntityManager; at?: Date } = {}): Promise<void> {
    const { em: within = this.em, at: now = new Date() } = opts;
    // A run that completed with every step recorded (the usual end) is one statement.
    if (status === 'completed' && steps.length === 0) {
      await within.nativeUpdate(Execution, { id: executionId, status: { $in: ['pending', 'running'] } }, { status: 'completed', error: null, completedAt: now });
      return;
    }
    await within.transactional(async (em) => {
      const ended = await em.nativeUpdate(Execution, { id: executionId, status: { $in: ['pending', 'running'] } }, { status, error, completedAt: now });
      if (ended === 0) return;
      // A node never reached carries the time the execution ended.
      await this.recordSteps(executionId, steps.map((step) => (step.status === 'not_reached' ? { ...step, startedAt: now, completedAt: now } : step)), em);
      if (status === 'completed') return;
      await em.nativeUpdate(
        ExecutionStep,
        { execution: executionId, status: 'waiting' },
        { status: 'cancelled', completedAt: now, error: status === 'cancelled' ? 'Not waited out: the execution was cancelled.' : 'Not waited out: the execution failed elsewhere.' },
      );
    });
  }
}
