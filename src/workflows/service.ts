import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findOr404 } from '../common/find-or-404.ts';
import { preconditionFailed, validationFailed } from '../errors.ts';
import { defaultGraph, TRIGGER_TYPES, validateGraph, type TriggerType, type WorkflowGraph } from '../graph/index.ts';
import { errorFields, type Logger } from '../logger.ts';
import { Workflow, WorkflowVersion } from './entity.ts';
import { canonicalJson, ifMatchHolds, workflowEtag, type IfMatch } from './etag.ts';
import { presentWorkflow } from './presenter.ts';
import type { CreateWorkflowInput, UpdateWorkflowInput } from './schema.ts';
import { scheduleSpecOf, type ScheduleSync } from './schedule-spec.ts';

/** Stops the unfinished runs of a workflow that is being deleted (the executions module does it). */
export interface RunCanceller {
  cancelAll(workflowId: string): Promise<void>;
}

/**
 * Checks that the calendars a graph names are the workspace's (the calendars module does it): a
 * 400 naming each node otherwise. Inside a transaction it keeps them from being deleted until
 * the transaction ends.
 */
export interface CalendarReferenceCheck {
  checkReferences(em: EntityManager, workspaceId: string, graph: WorkflowGraph): Promise<void>;
}

/** Checks that the people a graph names as approvers are members or admins of the workspace (the approvals module does it): a 400 naming each node otherwise. */
export type ApproverCheck = (em: EntityManager, workspaceId: string, graph: WorkflowGraph) => Promise<void>;

/** Workflows of a workspace: their definitions, versions and schedules. */
export class WorkflowService {
  private readonly em: EntityManager;
  private readonly runs: RunCanceller;
  private readonly calendars: CalendarReferenceCheck;
  private readonly approvers: ApproverCheck;
  private readonly schedules: ScheduleSync | undefined;
  private readonly logger: Logger | undefined;

  constructor(em: EntityManager, deps: { runs: RunCanceller; calendars: CalendarReferenceCheck; approvers?: ApproverCheck; schedules?: ScheduleSync; logger?: Logger }) {
    this.em = em;
    this.runs = deps.runs;
    this.calendars = deps.calendars;
    this.approvers = deps.approvers ?? (async () => {});
    this.schedules = deps.schedules;
    this.logger = deps.logger;
  }

  async create(workspaceId: string, input: CreateWorkflowInput): Promise<Workflow> {
    const { triggerType, graph } = workflowGraphOf(input);
    return this.em.transactional(async (em) => {
      await this.calendars.checkReferences(em, workspaceId, graph);
      await this.approvers(em, workspaceId, graph);
      const workflow = em.create(Workflow, {
        workspace: workspaceId,
        name: input.name,
        description: input.description ?? null,
        triggerType,
        graph,
        webhookSecret: triggerType === 'webhook' ? newWebhookSecret() : null,
      });
      em.create(WorkflowVersion, { workflow: workflow.id, version: 1, triggerType, graph, createdAt: workflow.createdAt });
      return workflow;
    });
  }

  async get(workspaceId: string, workflowId: string): Promise<Workflow> {
    return findOr404(this.em, Workflow, workflowId, { workspace: workspaceId, deletedAt: null }, 'Workflow');
  }

  /** Newest first. */
  async list(workspaceId: string, filter: { active?: boolean; triggerType?: TriggerType }): Promise<Workflow[]> {
    const where: Record<string, unknown> = { workspace: workspaceId, deletedAt: null };
    if (filter.active !== undefined) where.isActive = filter.active;
    if (filter.triggerType) where.triggerType = filter.triggerType;
    return this.em.find(Workflow, where, { orderBy: { createdAt: 'desc', id: 'desc' } });
  }

  /**
   * Applies a change. The version goes up by one when the graph or the trigger type really
   * changes; name, description and isActive leave it. Changing only the trigger type retypes
   * the trigger node of the current graph. With `ifMatch`, the change applies only to the
   * workflow in the state that ETag names (checked under the row lock, after the request's own
   * validation): otherwise a 412 and nothing changes.
   */
  async update(workspaceId: string, workflowId: string, input: UpdateWorkflowInput, opts: { ifMatch?: IfMatch } = {}): Promise<Workflow> {
    let wasScheduled = false;
    const workflow = await this.em.transactional(async (em) => {
      const workflow = await findOr404(em, Workflow, workflowId, { workspace: workspaceId, deletedAt: null }, 'Workflow', { lockMode: LockMode.PESSIMISTIC_WRITE });
      wasScheduled = workflow.triggerType === 'scheduled';
      const triggerType = input.triggerType ?? workflow.triggerType;
      let graph: WorkflowGraph = workflow.graph;
      if (input.workflowJson !== undefined) graph = checkedGraph(input.workflowJson, triggerType);
      else if (triggerType !== workflow.triggerType) graph = checkedGraph(retypeTrigger(workflow.graph, triggerType), triggerType);
      if (opts.ifMatch) checkPrecondition(workflow, opts.ifMatch);

      const now = new Date();
      const graphChanged = triggerType !== workflow.triggerType || canonicalJson(graph) !== canonicalJson(workflow.graph);
      // A new graph, or an active workflow, names only calendars of the workspace, and holds them.
      if (graphChanged || (input.isActive ?? workflow.isActive)) await this.calendars.checkReferences(em, workspaceId, graph);
      // A new graph, or a workflow being activated, asks only members for approvals.
      if (graphChanged || (input.isActive === true && !workflow.isActive)) await this.approvers(em, workspaceId, graph);
      if (graphChanged) {
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
      this.logger?.warn('schedule not updated; it will be reconciled when a worker starts', { workflowId: workflow.id, ...errorFields(err) });
    }
  }

  /** The workflow disappears from the API; its unfinished executions are cancelled. */
  async delete(workspaceId: string, workflowId: string): Promise<Workflow> {
    const workflow = await this.get(workspaceId, workflowId);
    workflow.deletedAt = new Date();
    workflow.isActive = false;
    await this.em.flush();
    await this.syncSchedule(workflow, workflow.triggerType === 'scheduled');
    await this.runs.cancelAll(workflow.id);
    return workflow;
  }
}

/** The trigger type of a workflow created without one (docs/contract.md). */
const DEFAULT_TRIGGER_TYPE: TriggerType = 'ticket_created';

/**
 * The trigger type and graph a create request asks for (the default graph without
 * `workflowJson`), validated node by node: a 400 naming each problem. A request without
 * `triggerType` gets the default, and a trigger node of another type is told so.
 */
export function workflowGraphOf(input: Pick<CreateWorkflowInput, 'triggerType' | 'workflowJson'>): { triggerType: TriggerType; graph: WorkflowGraph } {
  const triggerType = input.triggerType ?? DEFAULT_TRIGGER_TYPE;
  if (input.workflowJson === undefined) return { triggerType, graph: defaultGraph(triggerType) };
  return { triggerType, graph: checkedGraph(input.workflowJson, triggerType, { defaulted: input.triggerType === undefined }) };
}

function checkedGraph(input: unknown, triggerType: TriggerType, opts: { defaulted?: boolean } = {}): WorkflowGraph {
  const result = validateGraph(input, triggerType);
  if (result.ok) return result.graph;
  const mismatched = opts.defaulted ? otherTriggerTypePaths(input, triggerType) : new Map<string, string>();
  if (mismatched.size === 0) throw validationFailed(result.issues, 'workflowJson is not a valid workflow graph.');
  const hint = (type: string) =>
    `; the request gives no triggerType, so the workflow has the default, ${JSON.stringify(triggerType)}: send "triggerType": ${JSON.stringify(type)} to create a ${type} workflow`;
  throw validationFailed(
    result.issues.map((issue) => (mismatched.has(issue.path) ? { ...issue, message: issue.message + hint(mismatched.get(issue.path)!) } : issue)),
    `workflowJson is not a valid workflow graph: the request gives no triggerType, so the default, ${JSON.stringify(triggerType)}, applies, and the graph's trigger node is of another type.`,
  );
}

/** The issue paths of trigger nodes whose triggerType is a known one other than `triggerType`, with that type. */
function otherTriggerTypePaths(input: unknown, triggerType: TriggerType): Map<string, string> {
  const nodes = (input as { nodes?: unknown } | null)?.nodes;
  const paths = new Map<string, string>();
  if (!Array.isArray(nodes)) return paths;
  nodes.forEach((node: unknown, index) => {
    const type = (node as { type?: unknown; data?: { triggerType?: unknown } } | null)?.data?.triggerType;
    if ((node as { type?: unknown } | null)?.type !== 'trigger' || typeof type !== 'string') return;
    if (type !== triggerType && (TRIGGER_TYPES as readonly string[]).includes(type)) paths.set(`workflowJson.nodes[${index}].data.triggerType`, type);
  });
  return paths;
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

/**
 * A 412 carrying the current ETag, unless `ifMatch` names the workflow as it is. Its version is
 * said as it is, never as a change: renaming, describing or (de)activating changes the ETag,
 * not the version, and an ETag may be another workflow's.
 */
function checkPrecondition(workflow: Workflow, ifMatch: IfMatch): void {
  const current = workflowEtag(presentWorkflow(workflow));
  if (ifMatchHolds(ifMatch, current)) return;
  throw preconditionFailed(
    `If-Match does not name the workflow as it is now: it was changed since you read it (its graph is at version ${workflow.version}; ` +
      'a new name, description or activity changes the ETag but not the version), or the ETag is of another workflow. ' +
      'Read it again (GET) and reapply your change, or send If-Match with its current ETag to overwrite it.',
    [{ path: 'If-Match', message: `does not name the current state of the workflow (version ${workflow.version}, ETag ${current})` }],
    { ETag: current },
  );
}

function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}
