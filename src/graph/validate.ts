// validateGraph: the save-time check of workflowJson (docs/automations.md, "Graphs"). It
// reports every problem it finds (up to MAX_ISSUES), each with a path into the request body and
// a sentence naming the node or edge, so an editor can highlight exactly what to fix.

import { IssueList, childPath, edgeName, nodeName } from './issues.ts';
import type { Scope } from './issues.ts';
import { codePointLength, isRecord, quote } from './text.ts';
import { BRANCHING_ACTIONS, NODE_TYPES } from './types.ts';
import type { GraphValidation, NodeType, TriggerNode, TriggerType, WorkflowGraph } from './types.ts';
import { checkActionData } from './validate-actions.ts';
import { checkConditionData } from './validate-conditions.ts';
import { checkReachable, checkCycles, checkTriggerCount } from './validate-topology.ts';
import type { EdgeRef, NodeRef } from './validate-topology.ts';
import { checkTriggerData } from './validate-trigger.ts';
import { needsTicketSentence, ticketActionsReached } from './needs-ticket.ts';

export const MAX_NODES = 200;
export const MAX_EDGES = 500;
export const MAX_ID_LENGTH = 100;

const ROOT = 'workflowJson';
const TOP_LEVEL_KEYS = ['nodes', 'edges', 'viewport'];
const EDGE_KEYS = ['source', 'target', 'label', 'id'];

/** The graph a new workflow gets when it is created without workflowJson. */
export function defaultGraph(triggerType: TriggerType): WorkflowGraph {
  const trigger: TriggerNode = { id: 'trigger', type: 'trigger', data: { triggerType } };
  return { nodes: [trigger], edges: [] };
}

interface NodeInfo extends NodeRef {
  /** Its outgoing edges may carry a true/false label. */
  branching: boolean;
  type: NodeType;
}

export function validateGraph(input: unknown, triggerType: TriggerType): GraphValidation {
  const issues = new IssueList();
  if (!isRecord(input)) {
    issues.add(ROOT, 'workflowJson must be an object with "nodes" and "edges" lists');
    return { ok: false, issues: issues.list() };
  }
  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL_KEYS.includes(key)) {
      issues.add(childPath(ROOT, key), `workflowJson has an unknown key ${quote(key)} (allowed: ${TOP_LEVEL_KEYS.join(', ')})`);
    }
  }
  const { nodes, edges } = input;
  if (!Array.isArray(nodes)) issues.add(`${ROOT}.nodes`, 'workflowJson.nodes must be a list of nodes');
  if (!Array.isArray(edges)) issues.add(`${ROOT}.edges`, 'workflowJson.edges must be a list of edges');
  if (!Array.isArray(nodes) || !Array.isArray(edges)) return { ok: false, issues: issues.list() };
  // Over the size limits nothing else is checked: the work would be unbounded and the
  // author's first fix is to split the workflow anyway.
  if (nodes.length > MAX_NODES) {
    issues.add(`${ROOT}.nodes`, `a workflow has at most ${MAX_NODES} nodes; this one has ${nodes.length}`);
  }
  if (edges.length > MAX_EDGES) {
    issues.add(`${ROOT}.edges`, `a workflow has at most ${MAX_EDGES} edges; this one has ${edges.length}`);
  }
  if (nodes.length > MAX_NODES || edges.length > MAX_EDGES) {
    return { ok: false, issues: issues.list() };
  }

  const byId = checkNodes(issues, nodes, triggerType);
  const edgeRefs = checkEdges(issues, edges, byId);
  const nodeRefs = [...byId.values()].filter((n): n is NodeInfo => n !== null);
  const trigger = checkTriggerCount(issues, nodeRefs);
  checkCycles(issues, nodeRefs, edgeRefs);
  if (trigger !== undefined) checkReachable(issues, nodeRefs, edgeRefs, trigger);

  if (issues.count > 0) return { ok: false, issues: issues.list() };
  const graph = input as unknown as WorkflowGraph;
  if (triggerType === 'scheduled' && trigger !== undefined) checkScheduledTicket(issues, graph, trigger.index);
  if (issues.count > 0) return { ok: false, issues: issues.list() };
  return { ok: true, graph };
}

/**
 * A scheduled workflow without a ticketFilter runs once per tick with no ticket, so an action
 * that needs one could only fail every tick: say so when it is saved.
 */
function checkScheduledTicket(issues: IssueList, graph: WorkflowGraph, triggerIndex: number): void {
  const trigger = graph.nodes[triggerIndex];
  if (trigger.type !== 'trigger' || (trigger.data as { ticketFilter?: unknown }).ticketFilter !== undefined) return;
  const needy = ticketActionsReached(graph, { data: {} });
  if (needy.length === 0) return;
  issues.add(
    `${ROOT}.nodes[${triggerIndex}].data.ticketFilter`,
    `${nodeName(trigger.id, triggerIndex)}: ${needsTicketSentence(needy)}, so this scheduled workflow needs a ticketFilter (without one a tick runs once, with no ticket)`,
  );
}

/** Checks each node; returns the usable ones (valid id and type, first of each id) by id. */
function checkNodes(issues: IssueList, nodes: unknown[], triggerType: TriggerType): Map<string, NodeInfo | null> {
  // null marks an id that exists on a node too broken to use (unknown type): edges to it
  // are not reported again as pointing nowhere.
  const byId = new Map<string, NodeInfo | null>();
  const firstIndex = new Map<string, number>();
  nodes.forEach((node, index) => {
    const path = `${ROOT}.nodes[${index}]`;
    if (!isRecord(node)) {
      issues.add(path, `nodes[${index}] must be an object with id, type and data`);
      return;
    }
    const { id, type, data } = node;
    const who = nodeName(id, index);
    let usableId = true;
    if (typeof id !== 'string' || id === '') {
      issues.add(`${path}.id`, `nodes[${index}]: id must be a non-empty string, got ${quote(id)}`);
      usableId = false;
    } else if (codePointLength(id, MAX_ID_LENGTH) > MAX_ID_LENGTH) {
      issues.add(`${path}.id`, `nodes[${index}]: id must be at most ${MAX_ID_LENGTH} characters`);
      usableId = false;
    } else if (firstIndex.has(id)) {
      issues.add(`${path}.id`, `${who}: duplicate id (already used by nodes[${firstIndex.get(id)}])`);
      usableId = false;
    } else {
      firstIndex.set(id, index);
    }
    if (typeof type !== 'string' || !(NODE_TYPES as readonly string[]).includes(type)) {
      issues.add(`${path}.type`, `${who}: unknown type ${quote(type)} (expected trigger, condition or action)`);
      if (usableId && typeof id === 'string') byId.set(id, null);
      return;
    }
    const nodeType = type as NodeType;
    if (!isRecord(data)) {
      issues.add(`${path}.data`, `${who}: data must be an object`);
    } else {
      const scope: Scope = { issues, path: `${path}.data`, who };
      if (nodeType === 'trigger') checkTriggerData(scope, data, triggerType);
      else if (nodeType === 'condition') checkConditionData(scope, data);
      else checkActionData(scope, data);
    }
    if (usableId && typeof id === 'string') {
      const branching =
        nodeType === 'condition' || (nodeType === 'action' && isRecord(data) && (BRANCHING_ACTIONS as readonly unknown[]).includes(data.actionType));
      byId.set(id, { index, id, type: nodeType, isTrigger: nodeType === 'trigger', branching });
    }
  });
  return byId;
}

/** Checks each edge; returns those whose endpoints exist, minus self-loops and edges into the trigger. */
function checkEdges(issues: IssueList, edges: unknown[], byId: Map<string, NodeInfo | null>): EdgeRef[] {
  const refs: EdgeRef[] = [];
  const seen = new Map<string, number>();
  const seenIds = new Map<string, number>();
  edges.forEach((edge, index) => {
    const path = `${ROOT}.edges[${index}]`;
    if (!isRecord(edge)) {
      issues.add(path, `edge ${index} must be an object with source and target`);
      return;
    }
    const { source, target, label, id } = edge;
    const who = edgeName(index, source, target);
    for (const key of Object.keys(edge)) {
      if (!EDGE_KEYS.includes(key)) {
        issues.add(childPath(path, key), `${who}: unknown key ${quote(key)} (allowed: ${EDGE_KEYS.join(', ')})`);
      }
    }
    const from = endpoint(issues, path, who, 'source', source, byId);
    const to = endpoint(issues, path, who, 'target', target, byId);
    if (Object.hasOwn(edge, 'id')) {
      if (typeof id !== 'string' || id === '' || codePointLength(id, MAX_ID_LENGTH) > MAX_ID_LENGTH) {
        issues.add(`${path}.id`, `${who}: id must be a string of 1-${MAX_ID_LENGTH} characters`);
      } else if (seenIds.has(id)) {
        issues.add(`${path}.id`, `${who}: duplicate edge id ${quote(id)} (already used by edge ${seenIds.get(id)})`);
      } else {
        seenIds.set(id, index);
      }
    }
    const labelled = Object.hasOwn(edge, 'label');
    if (labelled && label !== 'true' && label !== 'false') {
      issues.add(`${path}.label`, `${who}: label must be "true" or "false", got ${quote(label)}`);
    } else if (labelled && from !== undefined && !from.branching) {
      issues.add(
        `${path}.label`,
        `${who}: a label is only allowed on edges leaving a condition node or a wait_for_reply or request_approval action, and ${quote(from.id)} is ${from.type === 'action' ? 'an' : 'a'} ${from.type} node`,
      );
    }
    if (from === undefined || to === undefined) return;
    if (from.id === to.id) {
      issues.add(path, `${who}: an edge cannot connect a node to itself`);
      return;
    }
    if (to.isTrigger) {
      issues.add(`${path}.target`, `${who}: the trigger node ${quote(to.id)} cannot have incoming edges`);
      return;
    }
    // An unlabelled edge out of a branching node means "true", so it duplicates a "true" one.
    const effective = from.branching && label !== 'false' ? 'true' : String(label ?? '');
    const key = JSON.stringify([from.id, to.id, effective]);
    const first = seen.get(key);
    if (first !== undefined) {
      issues.add(path, `${who}: duplicates edge ${first} (same source, target and label)`);
      return;
    }
    seen.set(key, index);
    refs.push({ index, source: from.id, target: to.id });
  });
  return refs;
}

function endpoint(
  issues: IssueList,
  path: string,
  who: string,
  side: 'source' | 'target',
  value: unknown,
  byId: Map<string, NodeInfo | null>,
): NodeInfo | undefined {
  if (typeof value !== 'string' || value === '') {
    issues.add(`${path}.${side}`, `${who}: ${side} must be a node id, got ${quote(value)}`);
    return undefined;
  }
  const node = byId.get(value);
  if (node === undefined) issues.add(`${path}.${side}`, `${who}: ${side} ${quote(value)} is not a node`);
  return node ?? undefined;
}
