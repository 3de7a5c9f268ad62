import type { EntityManager } from '@mikro-orm/postgresql';
import { findOr404 } from '../common/find-or-404.ts';
import { conflict, validationFailed } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { RunCanceller } from '../workflows/service.ts';
import type { WorkflowEngine } from './engine.ts';
import { Execution, ExecutionStep, FINISHED_STATUSES, type ExecutionStatus } from './entity.ts';
import { presentExecution, type PublicExecution } from './presenter.ts';

type ListOptions = { limit: number; status?: ExecutionStatus; before?: string };

/** Executions as the API shows them, and their cancellation. */
export class ExecutionService implements RunCanceller {
  private readonly em: EntityManager;
  private readonly engine: WorkflowEngine | undefined;
  private readonly logger: Logger | undefined;

  constructor(em: EntityManager, deps: { engine?: WorkflowEngine; logger?: Logger } = {}) {
    this.em = em;
    this.engine = deps.engine;
    this.logger = deps.logger;
  }

  /** Newest first, optionally of one status and older than the execution `before`. */
  async list(workflowId: string, opts: ListOptions): Promise<PublicExecution[]> {
    return this.page({ workflow: workflowId }, opts, 'before must be the id of an execution of this workflow.');
  }

  /**
   * The executions of a ticket, of every workflow of its workspace, in the same order and pages.
   * Executions of deleted workflows are left out: their workflow is gone from the API.
   */
  async listForTicket(workspaceId: string, ticketId: string, opts: ListOptions): Promise<PublicExecution[]> {
    return this.page({ workspace: workspaceId, ticketId, workflow: { deletedAt: null } }, opts, 'before must be the id of an execution of this ticket.');
  }

  private async page(scope: Record<string, unknown>, opts: ListOptions, badCursor: string): Promise<PublicExecution[]> {
    const where: Record<string, unknown> = { ...scope };
    if (opts.status) where.status = opts.status;
    if (opts.before !== undefined) {
      const cursor = isUuid(opts.before) ? await this.em.findOne(Execution, { ...scope, id: opts.before }, { fields: ['startedAt'] }) : null;
      if (!cursor) throw validationFailed([{ path: 'before', message: badCursor }]);
      where.$or = [{ startedAt: { $lt: cursor.startedAt } }, { startedAt: cursor.startedAt, id: { $lt: cursor.id } }];
    }
    const executions = await this.em.find(Execution, where, { orderBy: { startedAt: 'desc', id: 'desc' }, limit: opts.limit });
    return this.present(executions);
  }

  /** The execution of this workflow, or a 404. */
  async get(workflowId: string, executionId: string): Promise<Execution> {
    return findOr404(this.em, Execution, executionId, { workflow: workflowId }, 'Execution');
  }

  /** One execution with its steps, as the API shows it. */
  async view(execution: Execution): Promise<PublicExecution> {
    const [view] = await this.present([execution]);
    return view;
  }

  /** Executions with their steps, in one query for all steps. */
  private async present(executions: Execution[]): Promise<PublicExecution[]> {
    const steps = executions.length
      ? await this.em.find(ExecutionStep, { execution: { $in: executions.map((e) => e.id) } }, { orderBy: { startedAt: 'asc', seq: 'asc', completedAt: 'asc' } })
      : [];
    const byExecution = new Map<string, ExecutionStep[]>();
    for (const s of steps) byExecution.set(s.execution, [...(byExecution.get(s.execution) ?? []), s]);
    return executions.map((execution) => presentExecution(execution, byExecution.get(execution.id) ?? []));
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
    if (cancelledNow === 0 && this.engine) await this.engine.cancel(execution.temporalWorkflowId);
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
}
