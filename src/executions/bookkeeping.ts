import type { EntityManager } from '@mikro-orm/postgresql';
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
   * afterwards (`cancelled` when it was cancelled before it began; null when it is gone).
   */
  async begin(executionId: string, steps: StepRecord[] = []): Promise<ExecutionStatus | null> {
    return this.em.transactional(async (em) => {
      await em.nativeUpdate(Execution, { id: executionId, status: 'pending' }, { status: 'running', dispatchedAt: new Date() });
      const execution = await em.findOne(Execution, { id: executionId }, { fields: ['status'] });
      if (execution?.status === 'running') await this.recordSteps(executionId, steps, em);
      return execution?.status ?? null;
    });
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
