import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { byId, readCalendars } from '../calendars/store.ts';
import type { AfterCommit } from '../common/after-commit.ts';
import { handOffAll, retryUntilAcknowledged, type PendingPass } from '../common/retry-until-acknowledged.ts';
import { calendarReferences, walkToFirstAction, type RunContext, type TriggerType } from '../graph/index.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Workflow, WorkflowVersion } from '../workflows/entity.ts';
import type { WorkflowEngine } from './engine.ts';
import { Execution, ExecutionStep } from './entity.ts';
import { executionIdFor, runIdFor } from './run-ids.ts';
import type { RunGraphInput } from './run-input.ts';

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

/** What the dispatcher starts runs with; `afterCommit` inside a caller's transaction (see createAndStart). */
type DispatcherDeps = { engine?: WorkflowEngine; logger?: Logger; afterCommit?: AfterCommit };

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
  /** Without an engine, executions are created pending and left for a relay to start. */
  private readonly deps: DispatcherDeps;

  constructor(em: EntityManager, deps: DispatcherDeps = {}) {
    this.em = em;
    this.deps = deps;
  }

  /**
   * Adds executions to the unit of work of `em` (a transaction) and counts them on their
   * workflows (executionCount, lastTriggeredAt) in the same transaction.
   */
  async create(em: EntityManager, inputs: NewExecution[], now = new Date()): Promise<Execution[]> {
    // The calendars the graphs name, read once for the batch (deleted ones included: a run keeps them).
    const calendars = await readCalendars(em, inputs.flatMap((i) => calendarReferences(i.workflow.graph).map((r) => r.calendarId)));
    const created = inputs.map((input) => {
      // Derived from (workflow, event) where there is an event: see src/executions/run-ids.ts.
      const id = executionIdFor(input.workflow.id, input.eventId);
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
        temporalWorkflowId: runIdFor({ workflowName: input.workflow.name, ticketId: input.ticketId, triggeredBy: input.triggeredBy, executionId: id }),
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
    if (this.deps.afterCommit) {
      this.deps.afterCommit((em) => new ExecutionDispatcher(em, { engine: this.deps.engine, logger: this.deps.logger }).startOrLeavePending(execution));
      return execution;
    }
    await this.startOrLeavePending(execution);
    // The run may have begun meanwhile: answer with its current state, consistent with its steps.
    return (await this.em.refresh(execution)) ?? execution;
  }

  private async startOrLeavePending(execution: Execution): Promise<void> {
    await this.start([execution]).catch((err) => {
      this.deps.logger?.warn('engine unavailable; the relay will start the execution', { executionId: execution.id, ...errorFields(err) });
    });
  }

  /** Starts the runs of those of the given executions that are pending, and marks them dispatched; throws the first failure. */
  async start(all: Execution[]): Promise<void> {
    const executions = all.filter((e) => e.status === 'pending');
    const engine = this.deps.engine;
    if (!engine || executions.length === 0) return;
    const inputs = await runInputs(this.em, executions);
    const { acknowledged, failed } = await handOffAll(
      executions.filter((e) => inputs.has(e.id)),
      (e) => engine.start(e.temporalWorkflowId, inputs.get(e.id)!),
    );
    await markDispatched(this.em, acknowledged);
    if (failed.length > 0) throw failed[0].error;
  }

  /**
   * Starts executions still waiting for the engine (created while it was down), of the given
   * workspaces or all: one pass of retryUntilAcknowledged.
   */
  async startPending(limit = 100, workspaceIds?: string[]): Promise<PendingPass> {
    const engine = this.deps.engine;
    if (!engine || workspaceIds?.length === 0) return { claimed: 0, acknowledged: 0, failed: 0 };
    let inputs = new Map<string, RunGraphInput>();
    return retryUntilAcknowledged<Execution>(
      this.em,
      limit,
      {
        what: 'execution starts',
        claim: async (em, limit) => {
          const pending = await em.find(
            Execution,
            { dispatchedAt: null, status: 'pending', ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) },
            { orderBy: { startedAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE /* skip locked */ },
          );
          if (pending.length === 0) return [];
          inputs = await runInputs(em, pending);
          // One whose version is gone cannot start: it stays pending, as it always has.
          return pending.filter((e) => inputs.has(e.id));
        },
        handOff: (e) => engine.start(e.temporalWorkflowId, inputs.get(e.id)!),
        acknowledge: markDispatched,
        describe: (e) => ({ executionId: e.id }),
      },
      this.deps.logger,
    );
  }
}

async function markDispatched(em: EntityManager, executions: Execution[]): Promise<void> {
  if (executions.length === 0) return;
  await em.nativeUpdate(Execution, { id: { $in: executions.map((e) => e.id) }, dispatchedAt: null }, { dispatchedAt: new Date() });
}

/** What each run receives: the graph of its pinned version and the workflow's name. */
async function runInputs(em: EntityManager, executions: Execution[]): Promise<Map<string, RunGraphInput>> {
  const versions = await em.find(WorkflowVersion, { $or: executions.map((e) => ({ workflow: e.workflow, version: e.workflowVersion })) });
  const workflows = await em.find(Workflow, { id: { $in: [...new Set(executions.map((e) => e.workflow))] } }, { fields: ['name'] });
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
