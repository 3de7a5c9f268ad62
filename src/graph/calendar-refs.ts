// Which calendars a graph names, and where: business-hours conditions (their value), ages in
// open time (value.calendarId), business-time waits and the ticket filter of a schedule
// (calendarId). Saving a graph checks that each names a calendar of the workspace; a run reads
// the calendars of the nodes it reaches.

import { childPath } from './issues.ts';
import { isRecord } from './text.ts';
import { AGE_OPERATORS, BUSINESS_HOURS_OPERATORS } from './types.ts';
import type { WorkflowGraph } from './types.ts';

/** A calendar id named in a graph: the node, and the path of the value in the request body. */
export interface CalendarReference {
  calendarId: string;
  nodeId: string;
  path: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A calendar id as a graph may hold one: a UUID, in any letter case. */
export function isCalendarId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Every calendar reference of a (validated) graph, in node order. Ids are given lower-cased. */
export function calendarReferences(graph: WorkflowGraph): CalendarReference[] {
  const found: CalendarReference[] = [];
  graph.nodes.forEach((node, index) => {
    const path = `workflowJson.nodes[${index}].data`;
    const data = node.data as unknown as Record<string, unknown>;
    const add = (value: unknown, at: string) => {
      if (isCalendarId(value)) found.push({ calendarId: value.toLowerCase(), nodeId: node.id, path: at });
    };
    if (node.type === 'condition') {
      for (const { leaf, at } of leaves(data, path)) {
        if ((BUSINESS_HOURS_OPERATORS as readonly unknown[]).includes(leaf.operator)) add(leaf.value, childPath(at, 'value'));
        if ((AGE_OPERATORS as readonly unknown[]).includes(leaf.operator) && isRecord(leaf.value)) add(leaf.value.calendarId, childPath(childPath(at, 'value'), 'calendarId'));
      }
    } else if (node.type === 'action') {
      add(data.calendarId, childPath(path, 'calendarId'));
    } else if (isRecord(data.ticketFilter)) {
      add(data.ticketFilter.calendarId, childPath(childPath(path, 'ticketFilter'), 'calendarId'));
    }
  });
  return found;
}

/** The calendar ids a condition names (lower-cased, each once). */
export function conditionCalendarIds(condition: unknown): string[] {
  const ids = new Set<string>();
  for (const { leaf } of leaves(condition, '')) {
    if ((BUSINESS_HOURS_OPERATORS as readonly unknown[]).includes(leaf.operator) && isCalendarId(leaf.value)) ids.add(leaf.value.toLowerCase());
    if ((AGE_OPERATORS as readonly unknown[]).includes(leaf.operator) && isRecord(leaf.value) && isCalendarId(leaf.value.calendarId)) ids.add(leaf.value.calendarId.toLowerCase());
  }
  return [...ids];
}

/** The leaves of a condition (groups nest at most a few levels), with their paths. */
function leaves(condition: unknown, path: string, depth = 0): Array<{ leaf: Record<string, unknown>; at: string }> {
  if (!isRecord(condition) || depth > 32) return [];
  if (Array.isArray(condition.conditions)) {
    return condition.conditions.flatMap((c, k) => leaves(c, childPath(childPath(path, 'conditions'), k), depth + 1));
  }
  return [{ leaf: condition, at: path }];
}
