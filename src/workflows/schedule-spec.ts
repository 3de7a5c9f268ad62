import { findTriggerNode, type ScheduledTriggerData, type TicketFilter } from '../graph/index.ts';
import type { Workflow } from './entity.ts';

/** When a scheduled workflow fires (docs/contract.md §8). */
export type ScheduleSpec = { cron?: string; intervalSeconds?: number; timezone?: string };

/** Keeps the engine's schedule of a workflow in step with it; implemented on Temporal Schedules. */
export interface ScheduleSync {
  /** Creates, updates, pauses or removes the workflow's schedule to match its current state. */
  sync(workflow: Workflow): Promise<void>;
}

export function scheduledTrigger(workflow: Pick<Workflow, 'triggerType' | 'graph'>): ScheduledTriggerData | null {
  if (workflow.triggerType !== 'scheduled') return null;
  const trigger = findTriggerNode(workflow.graph);
  return trigger && trigger.data.triggerType === 'scheduled' ? trigger.data : null;
}

export function scheduleSpecOf(workflow: Pick<Workflow, 'triggerType' | 'graph'>): ScheduleSpec | null {
  const data = scheduledTrigger(workflow);
  if (!data || (data.cron === undefined && data.intervalSeconds === undefined)) return null;
  return { cron: data.cron, intervalSeconds: data.intervalSeconds, timezone: data.timezone };
}

export function ticketFilterOf(workflow: Pick<Workflow, 'triggerType' | 'graph'>): TicketFilter | null {
  return scheduledTrigger(workflow)?.ticketFilter ?? null;
}
