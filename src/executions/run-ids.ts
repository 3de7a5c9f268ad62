import type { TriggerType } from '../graph/index.ts';
import { newId, uuidFromName } from '../ids.ts';

/**
 * Names of Temporal runs. The Web UI's list of runs shows each run's Workflow ID (its first
 * column after the status, in the Web UI the Temporal CLI ships and in the Compose file's) and
 * its type, which is `runAutomation` for all of them: the id is what tells runs apart without
 * opening one. So it says, first, which automation and which ticket, then what started it and
 * the execution (`GET …/executions` shows the same id):
 *
 *   Escalate urgent tickets · ticket 0b6d… · ticket_created · execution 4f3e…
 *
 * The execution id, and so the run id, of an event's execution is derived from (workflow,
 * event): a redelivered event can never start a second run, whatever else the id says.
 */
export function executionIdFor(workflowId: string, eventId: string | null | undefined): string {
  return eventId ? uuidFromName(`execution:${workflowId}:${eventId}`) : newId();
}

/** The longest part of an automation's name a run id repeats (Temporal ids are at most 1,000 bytes). */
const NAME_MAX = 80;

/** An automation's name as run ids show it: one line, at most NAME_MAX characters. */
export function nameInRunId(name: string): string {
  const line = name.replace(/\s+/g, ' ').trim() || 'Workflow';
  const chars = [...line];
  return chars.length > NAME_MAX ? `${chars.slice(0, NAME_MAX - 1).join('')}…` : line;
}

export function runIdFor(run: { workflowName: string; ticketId: string | null; triggeredBy: TriggerType; executionId: string }): string {
  const ticket = run.ticketId ? `ticket ${run.ticketId}` : 'no ticket';
  return `${nameInRunId(run.workflowName)} · ${ticket} · ${run.triggeredBy} · execution ${run.executionId}`;
}

/**
 * The id of a scheduled workflow's ticks; Temporal appends the tick's time
 * (`Nightly sweep · workflow 1f2e… · tick-2026-11-25T02:00:00Z`). The workflow id keeps two
 * schedules of automations with the same name from taking each other's ticks.
 */
export function tickIdFor(workflow: { id: string; name: string }): string {
  return `${nameInRunId(workflow.name)} · workflow ${workflow.id} · tick`;
}
