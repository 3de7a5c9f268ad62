import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowEngine } from '../executions/engine.ts';
import { Execution, ExecutionStep } from '../executions/entity.ts';
import type { RunGraphInput } from '../executions/run-input.ts';
import { byId, readCalendars } from '../calendars/store.ts';
import { calendarReferences, walkToFirstAction, type RunContext, type TriggerType } from '../graph/index.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { Workflow, WorkflowVersion } from '../workflows/entity.ts';

export type NewExecution = {
  workflow: Workflow;
  triggeredBy: TriggerType;
  ticketId: string | null;
  context: RunContext;
  /** The outbox event (or schedule tick target) that caused it: at most one execution per (event, workflow). */
  eventId?: string;
  /** Workflow ids of the automation chain that led here (loop guard). */
  chain?: string[];
};

/**
 * Registers work to do once the caller's transaction has committed, on an EntityManager
 * outside it (see Services.inTransaction).
 */
export type AfterCommit = (task: (em: EntityManager) => Promise<void>) => void;

/**
 * The Temporal workflow id of an execution: readable in the Web UI, and for event runs derived
 * from (event, workflow), so that a redelivered event can never start a second run.
 */
export function temporalWorkflowIdFor(workflowId: string, triggeredBy: TriggerType, eventOrExecutionId: string): string {
  return triggeredBy === 'manual' || triggeredBy === 'webhook' || triggeredBy === 'scheduled'
    ? `workflow-${workflowId}/${triggeredBy}-${eventOrExecutionId}`
    : `workflow-${workflowId}/event-${eventOrExecutionId}`;
}

/**
 * Creates executions (pinned to their workflow's current version) and starts their runs on the
 * workflow engine. An execution whose path ends before any action (a condition that does not
 * hold) is walked here and created completed with its steps: it needs no run at all. The others
 * are created pending. Starting is safe to repeat: a run's id is fixed per execution and the
 * engine ignores a second start; executions the engine could not take stay pending until
 * `startPending` takes them up.
 */
export class ExecutionDispatcher {
  private readonly em: EntityManager;
  private readonly engine: WorkflowEngine | undefined;
  private readonly logger: Logger | undefined;
  private readonly afterCommit: AfterCommit | undefined;

  constructor(em: EntityManager, deps: { engine?: WorkflowEngine; logger?: Logger; afterCommit?: AfterCommit } = {}) {
    this.em = em;
    this.engine = deps.engine;
    this.logger = deps.logger;
    this.afterCommit = deps.afterCommit;
  }

  /**
   * Adds executions to the unit of work of `em` (a transaction) and counts them on their
   * workflows (executionCount, lastTriggeredAt) in the same transaction.
   */
  async create(em: EntityManager, inputs: NewExecution[], now = new Date()): Promise<Execution[]> {
    // The calendars the graphs name, read once for the batch (deleted ones included: a run keeps them).
    const calendars = await readCalendars(em, inputs.flatMap((i) => calendarReferences(i.workflow.graph).map((r) => r.calendarId)));
    const created = inputs.map((input) => {
      const id = newId();
      const prefix = walkToFirstAction(input.workflow.graph, input.context, {
        now: now.getTime(),
        calendars: byId(calendars.filter((c) => c.workspace === input.workflow.workspace)),
      });
      if (!prefix.reachesAction) {
        prefix.steps.forEach((step, i) => em.create(ExecutionStep, { execution: id, ...step, seq: i + 1, result: step.result ?? null, startedAt: now, completedAt: now }));
      }
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
        chain: [...(input.chain ?? []), input.workflow.id],
        temporalWorkflowId: temporalWorkflowIdFor(input.workflow.id, input.triggeredBy, input.eventId ?? id),
        startedAt: now,
        ...(prefix.reachesAction ? {} : { status: 'completed' as const, completedAt: now }),
      });
    });
    const perWorkflow = new Map<string, number>();
    for (const e of created) perWorkflow.set(e.workflow, (perWorkflow.get(e.workflow) ?? 0) + 1);
    for (const [workflowId, count] of perWorkflow) {
      await em.execute('update workflows set execution_count = execution_count + ?, last_triggered_at = greatest(last_triggered_at, ?) where id = ?', [count, now, workflowId]);
    }
    return created;
  }

  /**
   * Creates one execution now (manual, webhook) and starts it; if the engine is down the relay
   * starts it later. Inside a caller's transaction the run starts only after its commit (a run
   * whose execution rolled back must never begin) and the execution is returned as created.
   */
  async createAndStart(input: NewExecution): Promise<Execution> {
    const [execution] = await this.em.transactional((em) => this.create(em, [input]));
    if (this.afterCommit) {
      this.afterCommit((em) => new ExecutionDispatcher(em, { engine: this.engine, logger: this.logger }).startOrLeavePending(execution));
      return execution;
    }
    await this.startOrLeavePending(execution);
    // The run may have begun meanwhile: answer with its current state, consistent with its steps.
    return (await this.em.refresh(execution)) ?? execution;
  }

  private async startOrLeavePending(execution: Execution): Promise<void> {
    await this.start([execution]).catch((err) => {
      this.logger?.warn('engine unavailable; the relay will start the execution', { executionId: execution.id, error: String(err) });
    });
  }

  /** Starts the runs of those of the given executions that are pending, and marks them dispatched. */
  async start(all: Execution[]): Promise<void> {
    const executions = all.filter((e) => e.status === 'pending');
    if (!this.engine || executions.length === 0) return;
    const engine = this.engine;
    const inputs = await this.runInputs(executions);
    const started: string[] = [];
    const failures: unknown[] = [];
    await Promise.all(
      executions.map(async (e) => {
        const input = inputs.get(e.id);
        if (!input) return;
        try {
          await engine.start(e.temporalWorkflowId, input);
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
  async startPending(limit = 100, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    return this.em.transactional(async (em) => {
      const pending = await em.find(
        Execution,
        { dispatchedAt: null, status: 'pending', ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) },
        { orderBy: { startedAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked */ },
      );
      if (pending.length === 0) return 0;
      await new ExecutionDispatcher(em, { engine: this.engine, logger: this.logger }).start(pending);
      return pending.length;
    });
  }

  /** What each run receives: the graph of its pinned version and the workflow's name. */
  private async runInputs(executions: Execution[]): Promise<Map<string, RunGraphInput>> {
    const versions = await this.em.find(WorkflowVersion, { $or: executions.map((e) => ({ workflow: e.workflow, version: e.workflowVersion })) });
    const workflows = await this.em.find(Workflow, { id: { $in: [...new Set(executions.map((e) => e.workflow))] } }, { fields: ['name'] });
    const graphOf = new Map(versions.map((v) => [`${v.workflow}:${v.version}`, v.graph]));
    const nameOf = new Map(workflows.map((w) => [w.id, w.name]));
    const inputs = new Map<string, RunGraphInput>();
    for (const e of executions) {
      const graph = graphOf.get(`${e.workflow}:${e.workflowVersion}`);
      if (!graph) continue;
      inputs.set(e.id, {
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
        createdAt: e.startedAt.toISOString(),
      });
    }
    return inputs;
  }
}
