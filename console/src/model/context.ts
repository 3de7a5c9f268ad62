// The paths a condition can test and a {{placeholder}} can insert, for a workflow's trigger:
// what its runs' context holds (docs/automations.md, "Triggers and the run context"). The field
// lists come from src/graph, the same lists the validator checks paths against.

import {
  CHANGEABLE_TICKET_FIELDS,
  MESSAGE_CONTEXT_FIELDS,
  SLA_CONTEXT_FIELDS,
  TICKET_CONTEXT_FIELDS,
  type TriggerType,
} from '../../../src/graph/index.ts';

/** Which parts of the context a run of each trigger has. A trigger type src/graph adds later gets the ticket and `data`. */
const ROOTS: Record<string, readonly ('ticket' | 'message' | 'changes' | 'tag' | 'sla' | 'data')[]> = {
  ticket_created: ['ticket'],
  ticket_updated: ['ticket', 'changes'],
  ticket_closed: ['ticket'],
  message_received: ['ticket', 'message'],
  tag_added: ['ticket', 'tag'],
  manual: ['ticket', 'data'],
  scheduled: ['ticket', 'data'],
  webhook: ['ticket', 'data'],
  sla_warning: ['ticket', 'sla'],
  sla_breached: ['ticket', 'sla'],
};

export function contextPaths(triggerType: TriggerType | string): string[] {
  const paths: string[] = [];
  for (const root of ROOTS[triggerType] ?? ['ticket', 'data']) {
    if (root === 'ticket') paths.push(...TICKET_CONTEXT_FIELDS.map((f) => `ticket.${f}`));
    if (root === 'message') paths.push(...MESSAGE_CONTEXT_FIELDS.map((f) => `message.${f}`));
    if (root === 'changes') for (const f of CHANGEABLE_TICKET_FIELDS) paths.push(`changes.${f}.from`, `changes.${f}.to`);
    if (root === 'tag') paths.push('tag');
    if (root === 'sla') paths.push(...SLA_CONTEXT_FIELDS.map((f) => `sla.${f}`));
    if (root === 'data') paths.push('data.');
  }
  return paths;
}

/** The fields `changed`, `changed_to` and `changed_from` take: the ticket fields a change reports. */
export const CHANGE_FIELDS: readonly string[] = CHANGEABLE_TICKET_FIELDS;

/** `text` with `{{path}}` inserted at `at` (the caret), and where the caret goes after it. */
export function insertPlaceholder(text: string, at: number, path: string): { text: string; caret: number } {
  const position = Math.max(0, Math.min(at, text.length));
  const inserted = `{{${path}}}`;
  return { text: text.slice(0, position) + inserted + text.slice(position), caret: position + inserted.length };
}
