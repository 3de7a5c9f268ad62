import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, validationFailed } from '../errors.ts';
import { defaultGraph, validateGraph, type TriggerType, type WorkflowGraph } from '../graph/index.ts';
import { isUuid, newId } from '../ids.ts';
import { Execution } from '../executions/entity.ts';
import type { ExecutionService } from '../executions/service.ts';
import type { TicketService } from '../tickets/service.ts';
import { ticketContext } from '../tickets/presenter.ts';
import { Workflow, WorkflowVersion } from './entity.ts';
import type { CreateWorkflowInput, UpdateWorkflowInput } from './schema.ts';
import { scheduleSpecOf, type ScheduleSync } from './schedules.ts';
import type { Logger } from '../logger.ts';

export type WorkflowStats = { executionCount: number; lastTriggeredAt: Date | null };

/** Workflows of a workspace: definitions, versions, and manual runs. */
export class WorkflowService {
  private readonly em: EntityManager;
  private readonly executions: ExecutionService;
  private readonly tickets: TicketService;
  private readonly schedules: ScheduleSync | undefined;
  private readonly logger: Logger | undefined;

  constructor(em: EntityManager, executions: ExecutionService, tickets: TicketService, opts: { schedules?: ScheduleSync; logger?: Logger } = {}) {
    this.em = em;
    this.executions = executions;
    this.tickets = tickets;
    this.schedules = opts.schedules;
    this.logger = opts.logger;
  }

  async create(workspaceId: string, input: CreateWorkflowInput): Promise<Workflow> {
    const triggerType = input.triggerType ?? 'ticket_created';
    const graph = input.workflowJson === undefined ? defaultGraph(triggerType) : checkedGraph(input.workflowJson, triggerType);
    const now = new Date();
    const workflow = this.em.create(Workflow, {
      id: newId(),
      workspace: workspaceId,
      name: input.name,
      description: input.description ?? null,
      triggerType,
      isActive: false,
      version: 1,
      graph,
      webhookSecret: triggerType === 'webhook' ? newWebhookSecret() : null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    this.em.create(WorkflowVersion, { workflow: workflow.id, version: 1, triggerType, graph, createdAt: now });
    await this.em.flush();
    return workflow;
  }

  async get(workspaceId: string, workflowId: string): Promise<Workflow> {
    const workflow = isUuid(workflowId) ? await this.em.findOne(Workflow, { id: workflowId, workspace: workspaceId, deletedAt: null }) : null;
    if (!workflow) throw notFound('Workflow');
    return workflow;
  }

  /** Newest first, with each workflow's execution count and last trigger time (one aggregate query). */
  async list(workspaceId: string, filter: { active?: boolean; triggerType?: TriggerType }) {
    const where: Record<string, unknown> = { workspace: workspaceId, deletedAt: null };
    if (filter.active !== undefined) where.isActive = filter.active;
    if (filter.triggerType) where.triggerType = filter.triggerType;
    const workflows = await this.em.find(Workflow, where, { orderBy: { createdAt: 'desc', id: 'desc' } });
    const stats = new Map<string, WorkflowStats>();
    if (workflows.length > 0) {
      const rows: Array<{ workflow_id: string; count: string; last: Date | null }> = await this.em.execute(
        `select workflow_id, count(*) as count, max(started_at) as last from executions
         where workflow_id in (${workflows.map(() => '?').join(', ')}) group by workflow_id`,
        workflows.map((w) => w.id),
      );
      for (const r of rows) stats.set(r.workflow_id, { executionCount: Number(r.count), lastTriggeredAt: r.last ? new Date(r.last) : null });
    }
    return workflows.map((workflow) => ({ workflow, stats: stats.get(workflow.id) ?? { executionCount: 0, lastTriggeredAt: null } }));
  }

  /**
   * Applies a change. The version goes up by one when the graph or the trigger type really
   * changes; name, description and isActive leave it. Changing only the trigger type retypes
   * the trigger node of the current graph.
   */
  async update(workspaceId: string, workflowId: string, input: UpdateWorkflowInput): Promise<Workflow> {
    let wasScheduled = false;
    const workflow = await this.em.transactional(async (em) => {
      const workflow = await em.findOne(Workflow, { id: workflowId, workspace: workspaceId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!workflow) throw notFound('Workflow');
      wasScheduled = workflow.triggerType === 'scheduled';
      const triggerType = input.triggerType ?? workflow.triggerType;
      let graph: WorkflowGraph = workflow.graph;
      if (input.workflowJson !== undefined) graph = checkedGraph(input.workflowJson, triggerType);
      else if (triggerType !== workflow.triggerType) graph = checkedGraph(retypeTrigger(workflow.graph, triggerType), triggerType);

      const now = new Date();
      if (triggerType !== workflow.triggerType || canonicalJson(graph) !== canonicalJson(workflow.graph)) {
        workflow.version += 1;
        workflow.triggerType = triggerType;
        workflow.graph = graph;
        em.create(WorkflowVersion, { workflow: workflow.id, version: workflow.version, triggerType, graph, createdAt: now });
      }
      if (triggerType === 'webhook') workflow.webhookSecret ??= newWebhookSecret();
      if (input.name !== undefined) workflow.name = input.name;
      if (input.description !== undefined) workflow.description = input.description;
      if (input.isActive !== undefined) workflow.isActive = input.isActive;
      if (workflow.isActive && workflow.triggerType === 'scheduled' && !scheduleSpecOf(workflow)) {
        throw validationFailed(
          [{ path: 'workflowJson.nodes', message: 'a scheduled workflow needs cron or intervalSeconds in its trigger node before it can be active' }],
          'The workflow cannot be active without a schedule.',
        );
      }
      workflow.updatedAt = now;
      return workflow;
    });
    await this.syncSchedule(workflow, wasScheduled);
    return workflow;
  }

  /** Best effort: a schedule the engine could not take now is put right when a worker starts (reconcile). */
  private async syncSchedule(workflow: Workflow, wasScheduled: boolean): Promise<void> {
    if (!this.schedules || (!wasScheduled && workflow.triggerType !== 'scheduled')) return;
    try {
      await this.schedules.sync(workflow);
    } catch (err) {
      this.logger?.warn('schedule not updated; it will be reconciled when a worker starts', { workflowId: workflow.id, error: String(err) });
    }
  }

  /** The workflow disappears from the API; its unfinished executions are cancelled. */
  async delete(workspaceId: string, workflowId: string): Promise<Workflow> {
    const workflow = await this.get(workspaceId, workflowId);
    workflow.deletedAt = new Date();
    workflow.isActive = false;
    await this.em.flush();
    await this.syncSchedule(workflow, workflow.triggerType === 'scheduled');
    await this.executions.cancelAll(workflow.id);
    return workflow;
  }

  /** A manual run (a test run when the workflow is inactive), on a ticket of the workspace or none. */
  async trigger(workflow: Workflow, input: { ticketId?: string; data?: Record<string, unknown> }): Promise<Execution> {
    const ticket = input.ticketId !== undefined ? await this.tickets.get(workflow.workspace, input.ticketId) : null;
    return this.executions.createAndStart({
      workflow,
      triggeredBy: 'manual',
      ticketId: ticket?.id ?? null,
      context: { ...(ticket ? { ticket: ticketContext(ticket) } : {}), data: input.data ?? {} },
    });
  }
}

function checkedGraph(input: unknown, triggerType: TriggerType): WorkflowGraph {
  const result = validateGraph(input, triggerType);
  if (!result.ok) throw validationFailed(result.issues, 'workflowJson is not a valid workflow graph.');
  return result.graph;
}

/** The graph with its trigger node retyped; settings of the old trigger type (a schedule) are dropped, its label kept. */
function retypeTrigger(graph: WorkflowGraph, triggerType: TriggerType): unknown {
  return {
    ...graph,
    nodes: graph.nodes.map((n) =>
      n.type === 'trigger' ? { ...n, data: { triggerType, ...(n.data.label !== undefined ? { label: n.data.label } : {}) } } : n,
    ),
  };
}

/** JSON with object keys sorted: PostgreSQL jsonb does not keep key order, so compare graphs this way. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}
