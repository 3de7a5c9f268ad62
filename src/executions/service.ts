import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { RunContext, TriggerType } from '../graph/index.ts';
import { isUuid, newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { Workflow, WorkflowVersion } from '../workflows/entity.ts';
import { Execution, ExecutionStep, FINISHED_STATUSES, type ExecutionStatus, type StepStatus } from './entity.ts';
import type { RunGraphInput, WorkflowEngine } from './run-input.ts';

/** The Temporal workflow id of an execution: readable, and derived from (event, workflow) for event runs. */
export function runIdFor(workflowId: string, triggeredBy: TriggerType, eventOrExecutionId: string): string {
  return triggeredBy === 'manual' || triggeredBy === 'webhook' || triggeredBy === 'scheduled'
    ? `workflow-${workflowId}/${triggeredBy}-${eventOrExecutionId}`
    : `workflow-${workflowId}/event-${eventOrExecutionId}`;
}

export type NewExecution = {
  workflow: Workflow;
  triggeredBy: TriggerType;
  ticketId: string | null;
  context: RunContext;
  eventId?: string;
  chain?: string[];
};

export type StepRecord = {
  nodeId: string;
  status: StepStatus;
  result?: unknown;
  startedAt: Date;
  completedAt: Date | null;
  error?: string | null;
};

export class ExecutionService {
  private readonly em: EntityManager;
  private readonly engine: WorkflowEngine | undefined;
  private readonly logger: Logger | undefined;

  constructor(em: EntityManager, engine?: WorkflowEngine, logger?: Logger) {
    this.em = em;
    this.engine = engine;
    this.logger = logger;
  }

  /** Adds a pending execution of the workflow's current version to the unit of work of `em`. */
  build(em: EntityManager, input: NewExecution, now = new Date()): Execution {
    const id = newId();
    const chain = [...(input.chain ?? []), input.workflow.id];
    return em.create(Execution, {
      id,
      workspace: input.workflow.workspace,
      workflow: input.workflow.id,
      workflowVersion: input.workflow.version,
      status: 'pending',
      triggeredBy: input.triggeredBy,
      ticketId: input.ticketId,
      eventId: input.eventId ?? null,
      context: input.context as Record<string, unknown>,
      chain,
      runId: runIdFor(input.workflow.id, input.triggeredBy, input.eventId ?? id),
      dispatchedAt: null,
      startedAt: now,
      completedAt: null,
      error: null,
    });
  }

  /** Creates one execution now (manual, webhook) and starts it; if the engine is down the relay starts it later. */
  async createAndStart(input: NewExecution): Promise<Execution> {
    const execution = this.build(this.em, input);
    await this.em.flush();
    await this.dispatch([execution]).catch((err) => {
      this.logger?.warn('engine unavailable; the relay will start the execution', { executionId: execution.id, error: String(err) });
    });
    // The run may have begun meanwhile: answer with its current state, consistent with its steps.
    return (await this.em.refresh(execution)) ?? execution;
  }

  /**
   * Starts the Temporal runs of the given pending executions and marks them dispatched. Safe
   * to repeat: run ids are fixed per execution and the engine ignores a second start.
   */
  async dispatch(executions: Execution[]): Promise<void> {
    if (!this.engine || executions.length === 0) return;
    const engine = this.engine;
    const versions = await this.em.find(
      WorkflowVersion,
      { $or: executions.map((e) => ({ workflow: e.workflow, version: e.workflowVersion })) },
    );
    const workflows = await this.em.find(Workflow, { id: { $in: [...new Set(executions.map((e) => e.workflow))] } }, { fields: ['name'] });
    const graphOf = new Map(versions.map((v) => [`${v.workflow}:${v.version}`, v.graph]));
    const nameOf = new Map(workflows.map((w) => [w.id, w.name]));
    const started: string[] = [];
    const failures: unknown[] = [];
    await Promise.all(
      executions.map(async (e) => {
        const graph = graphOf.get(`${e.workflow}:${e.workflowVersion}`);
        if (!graph) return;
        const input: RunGraphInput = {
          executionId: e.id,
          workspaceId: e.workspace,
          workflowId: e.workflow,
          workflowVersion: e.workflowVersion,
          workflowName: nameOf.get(e.workflow) ?? '',
          triggeredBy: e.triggeredBy,
          ticketId: e.ticketId ?? null,
          graph,
          context: e.context as RunContext,
          chain: e.chain,
        };
        try {
          await engine.start(e.runId, input);
          started.push(e.id);
        } catch (err) {
          failures.push(err);
        }
      }),
    );
    if (started.length > 0) {
      await this.em.nativeUpdate(Execution, { id: { $in: started }, dispatchedAt: null }, { dispatchedAt: new Date() });
    }
    if (failures.length > 0) throw failures[0];
  }

  /** Starts executions still waiting for the engine (created while it was down), of the given workspaces or all. */
  async dispatchPending(limit = 100, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    return this.em.transactional(async (em) => {
      const pending = await em.find(
        Execution,
        { dispatchedAt: null, status: 'pending', ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) },
        { orderBy: { startedAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked */ },
      );
      if (pending.length === 0) return 0;
      await new ExecutionService(em, this.engine, this.logger).dispatch(pending);
      return pending.length;
    });
  }

  async list(workflowId: string, opts: { limit: number; status?: ExecutionStatus; before?: string }) {
    const where: Record<string, unknown> = { workflow: workflowId };
    if (opts.status) where.status = opts.status;
    if (opts.before !== undefined) {
      const cursor = isUuid(opts.before) ? await this.em.findOne(Execution, { id: opts.before, workflow: workflowId }, { fields: ['startedAt'] }) : null;
      if (!cursor) throw validationFailed([{ path: 'before', message: 'before must be the id of an execution of this workflow.' }]);
      where.$or = [{ startedAt: { $lt: cursor.startedAt } }, { startedAt: cursor.startedAt, id: { $lt: cursor.id } }];
    }
    const executions = await this.em.find(Execution, where, { orderBy: { startedAt: 'desc', id: 'desc' }, limit: opts.limit });
    return this.withSteps(executions);
  }

  async get(workflowId: string, executionId: string): Promise<Execution> {
    const execution = isUuid(executionId) ? await this.em.findOne(Execution, { id: executionId, workflow: workflowId }) : null;
    if (!execution) throw notFound('Execution');
    return execution;
  }

  /** Executions with their steps, in one query for all steps. */
  async withSteps(executions: Execution[]): Promise<Array<{ execution: Execution; steps: ExecutionStep[] }>> {
    const steps = executions.length
      ? await this.em.find(ExecutionStep, { execution: { $in: executions.map((e) => e.id) } }, { orderBy: { startedAt: 'asc', completedAt: 'asc' } })
      : [];
    const byExecution = new Map<string, ExecutionStep[]>();
    for (const s of steps) byExecution.set(s.execution, [...(byExecution.get(s.execution) ?? []), s]);
    return executions.map((execution) => ({ execution, steps: byExecution.get(execution.id) ?? [] }));
  }

  /**
   * Cancels an unfinished execution: one the engine has not started yet ends `cancelled` at
   * once; a started one is asked to stop and records `cancelled` itself. A finished one is 409.
   */
  async cancel(execution: Execution): Promise<void> {
    if (FINISHED_STATUSES.has(execution.status)) {
      throw conflict('execution_finished', `The execution has already ended (${execution.status}).`);
    }
    const cancelledNow = await this.em.nativeUpdate(
      Execution,
      { id: execution.id, status: 'pending', dispatchedAt: null },
      { status: 'cancelled', completedAt: new Date() },
    );
    if (cancelledNow === 0 && this.engine) await this.engine.cancel(execution.runId);
  }

  /** The execution once it has ended, or as it is after `timeoutMs`. */
  async waitUntilFinished(executionId: string, timeoutMs: number): Promise<Execution> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const execution = await this.em.fork().findOneOrFail(Execution, { id: executionId });
      if (FINISHED_STATUSES.has(execution.status) || Date.now() >= deadline) return execution;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Cancels every unfinished execution of a workflow (it is being deleted). */
  async cancelAll(workflowId: string): Promise<void> {
    const open = await this.em.find(Execution, { workflow: workflowId, status: { $in: ['pending', 'running'] } });
    await Promise.all(open.map((e) => this.cancel(e).catch((err) => this.logger?.warn('cancel failed', { executionId: e.id, error: String(err) }))));
  }

  // --- bookkeeping called by the run's activities -------------------------------------

  /** pending → running. Returns the status afterwards (`cancelled` when it was cancelled before it began). */
  async markRunning(executionId: string): Promise<ExecutionStatus | null> {
    await this.em.nativeUpdate(Execution, { id: executionId, status: 'pending' }, { status: 'running', dispatchedAt: new Date() });
    const execution = await this.em.findOne(Execution, { id: executionId }, { fields: ['status'] });
    return execution?.status ?? null;
  }

  async recordStep(executionId: string, step: StepRecord, em: EntityManager = this.em): Promise<void> {
    await em.upsert(
      ExecutionStep,
      {
        execution: executionId,
        nodeId: step.nodeId,
        status: step.status,
        result: step.result ?? null,
        startedAt: step.startedAt,
        completedAt: step.completedAt,
        error: step.error ?? null,
      },
      { onConflictFields: ['execution', 'nodeId'], onConflictAction: 'merge' },
    );
  }

  async findStep(executionId: string, nodeId: string, em: EntityManager = this.em): Promise<ExecutionStep | null> {
    return em.findOne(ExecutionStep, { execution: executionId, nodeId });
  }

  /**
   * Records the end of a run; an execution that already ended keeps its first outcome. A step
   * still waiting (a delay or wait_for_reply cut short by a cancel or by a failure on another
   * branch) ends with it, as failed with the reason: no finished execution shows a step waiting.
   */
  async finish(executionId: string, status: 'completed' | 'failed' | 'cancelled', error: string | null): Promise<void> {
    const now = new Date();
    await this.em.transactional(async (em) => {
      const ended = await em.nativeUpdate(Execution, { id: executionId, status: { $in: ['pending', 'running'] } }, { status, error, completedAt: now });
      if (ended === 0 || status === 'completed') return;
      await em.nativeUpdate(
        ExecutionStep,
        { execution: executionId, status: 'waiting' },
        { status: 'failed', completedAt: now, error: status === 'cancelled' ? 'The execution was cancelled while this step was waiting.' : 'The execution failed elsewhere while this step was waiting.' },
      );
    });
  }
}
