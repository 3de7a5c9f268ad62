import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions, type ScheduleSpec } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { tickIdFor } from '../src/executions/run-ids.ts';
import { errorFields, type Logger } from '../src/logger.ts';
import { Workflow } from '../src/workflows/entity.ts';
import { scheduleSpecOf, type ScheduleSync } from '../src/workflows/schedule-spec.ts';
import { WORKFLOW_ID, WORKFLOW_NAME, WORKSPACE_ID } from './search-attributes.ts';

export const scheduleIdFor = (workflowId: string) => `workflow-${workflowId}/schedule`;

/**
 * A Temporal Schedule per scheduled workflow (docs/contract.md §8): created when the workflow is
 * activated, updated when it is edited, paused when it is deactivated, deleted with it (or
 * when it stops being scheduled). Visible in the Web UI under Schedules.
 */
export class TemporalSchedules implements ScheduleSync {
  private readonly client: Client;
  private readonly taskQueue: string;

  constructor(client: Client, taskQueue: string) {
    this.client = client;
    this.taskQueue = taskQueue;
  }

  async sync(workflow: Workflow): Promise<void> {
    const handle = this.client.schedule.getHandle(scheduleIdFor(workflow.id));
    const spec = workflow.deletedAt ? null : scheduleSpecOf(workflow);
    if (!spec) {
      await handle.delete().catch(ignoreNotFound);
      return;
    }
    const options = this.optionsFor(workflow, spec);
    try {
      // Spec, action and paused state in one update: the schedule never runs a new spec while
      // it should be paused, nor stays paused with a new one.
      await handle.update((previous) => ({
        ...previous,
        spec: options.spec,
        action: options.action,
        policies: options.policies,
        state: { ...previous.state, paused: options.state!.paused!, note: options.state!.note },
      }));
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
      if (!workflow.isActive) return; // a schedule appears only once the workflow is activated
      await this.client.schedule.create(options);
    }
  }

  private optionsFor(workflow: Workflow, spec: NonNullable<ReturnType<typeof scheduleSpecOf>>): ScheduleOptions {
    const temporalSpec: ScheduleSpec = spec.cron
      ? { cronExpressions: [spec.cron], ...(spec.timezone ? { timezone: spec.timezone } : {}) }
      : { intervals: [{ every: `${spec.intervalSeconds}s` }] };
    return {
      scheduleId: scheduleIdFor(workflow.id),
      spec: temporalSpec,
      action: {
        type: 'startWorkflow',
        workflowType: 'scheduledTick',
        workflowId: tickIdFor(workflow),
        taskQueue: this.taskQueue,
        args: [{ workflowId: workflow.id }],
        typedSearchAttributes: [
          { key: WORKSPACE_ID, value: workflow.workspace },
          { key: WORKFLOW_ID, value: workflow.id },
          { key: WORKFLOW_NAME, value: workflow.name },
        ],
        staticSummary: `Scheduled tick of "${workflow.name}"`,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      state: { paused: !workflow.isActive, note: workflow.isActive ? 'active' : 'workflow deactivated' },
      memo: { workflowName: workflow.name },
    };
  }
}

/**
 * Puts every scheduled workflow's schedule in step with the database, for changes the engine
 * could not take when they were made (it was down): deleted workflows lose their schedule,
 * deactivated ones are paused, active ones run their current spec. Run when a worker starts.
 * `workspaceIds` limits it to those workspaces (omitted: all).
 */
export async function reconcileSchedules(orm: MikroORM, schedules: ScheduleSync, logger: Logger, workspaceIds?: string[]): Promise<void> {
  const workflows = await orm.em.fork().find(Workflow, { triggerType: 'scheduled', ...(workspaceIds ? { workspace: { $in: workspaceIds } } : {}) });
  for (const workflow of workflows) {
    await schedules.sync(workflow).catch((err) => logger.warn('schedule reconcile failed', { workflowId: workflow.id, ...errorFields(err) }));
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof ScheduleNotFoundError)) throw err;
}
