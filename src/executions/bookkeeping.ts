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
   * pending → running, with the steps walked before the first effect. Returns the status
   * afterwards (`cancelled` when it was cancelled before it began; null when it is gone). Each
   * statement stands alone and is safe to repeat (a retry finds the run running and records
   * the same steps again), so no transaction is needed: one statement where a run begins, as
   * most do, from the state it was created in. Within a caller's transaction with `em`.
   */
  async begin(executionId: string, steps: StepRecord[] = [], em: EntityManager = this.em): Promise<ExecutionStatus | null> {
    const [begun] = await sql<{ status: ExecutionStatus }>(
      em,
      `update "executions" set "status" = 'running', "dispatched_at" = coalesce("dispatched_at", now()) where "id" = $1 and "status" = 'pending' returning "status"`,
      [executionId],
    );
    const status = begun?.status ?? (await sql<{ status: ExecutionStatus }>(em, 'select "status" from "executions" where "id" = $1', [executionId]))[0]?.status ?? null;
    if (status === 'running') await this.recordSteps(executionId, steps, em);
    return status;
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
   * Records the end of a run; an execution that already ended keeps its first outcome. A step
   * still waiting (a delay or wait_for_reply cut short by a cancel or by a failure on another
   * branch) ends with it, as cancelled with the reason: no finished execution shows a step waiting.
   */
  async finish(executionId: string, status: 'completed' | 'failed' | 'cancelled', error: string | null, steps: StepRecord[] = []): Promise<void> {
    const now = new Date();
    // A run that completed with every step recorded (the usual end) is one statement.
    if (status === 'completed' && steps.length === 0) {
      await this.em.nativeUpdate(Execution, { id: executionId, status: { $in: ['pending', 'running'] } }, { status, error, completedAt: now });
      return;
    }
    await this.em.transactional(async (em) => {
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
