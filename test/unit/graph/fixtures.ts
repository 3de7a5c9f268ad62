// Builders for small graphs in the validation and walker tests.
import { expect } from 'vitest';
import { validateGraph } from '../../../src/graph/index.ts';
import type { GraphIssue, TriggerType, WorkflowGraph } from '../../../src/graph/index.ts';
import { actionNode, conditionNode, edge as graphEdge, graphWith, triggerNode, type Json } from '../../helpers/graphs.ts';

export type { Json };

// The builders of test/helpers/graphs.ts, in the argument order these tests use.
export const trigger = (id = 'trigger', triggerType: string = 'ticket_created', extra: Json = {}): Json => triggerNode(triggerType, id, extra);
export const condition = conditionNode;
export const action = (id: string, data: Json = { actionType: 'add_tag', tag: 'x' }): Json => actionNode(id, data);
export const edge = (source: string, target: string, label?: string): Json => graphEdge(source, target, label as 'true' | 'false' | undefined);

/** Issues of an input that must fail validation. */
export function issuesOf(input: unknown, triggerType: TriggerType = 'ticket_created'): GraphIssue[] {
  const result = validateGraph(input, triggerType);
  if (result.ok) throw new Error('expected validation to fail');
  return result.issues;
}

/** Asserts that validation reports exactly one issue with this path and a matching message. */
export function expectOnlyIssue(input: unknown, path: string, message: RegExp, triggerType?: TriggerType): GraphIssue {
  const issues = issuesOf(input, triggerType);
  expect(issues, JSON.stringify(issues, null, 1)).toHaveLength(1);
  expect(issues[0].path).toBe(path);
  expect(issues[0].message).toMatch(message);
  return issues[0];
}

export function expectValid(input: unknown, triggerType: TriggerType = 'ticket_created'): WorkflowGraph {
  const result = validateGraph(input, triggerType);
  if (!result.ok) throw new Error(`expected a valid graph, got ${JSON.stringify(result.issues, null, 1)}`);
  return result.graph;
}

/** A graph of the trigger plus one node of the given data, linked trigger → node. */
export const withNode = (node: Json): Json => graphWith(node);
