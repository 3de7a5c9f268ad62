// Whole-graph rules that need every node and edge at once: exactly one trigger, no cycle,
// every node reachable from the trigger. They run on the nodes and edges that passed their
// own checks, so one broken edge does not hide a cycle elsewhere.

import { edgeName, nodeName } from './issues.ts';
import type { IssueList } from './issues.ts';
import { quote } from './text.ts';

export interface NodeRef {
  index: number;
  id: string;
  isTrigger: boolean;
}

export interface EdgeRef {
  index: number;
  source: string;
  target: string;
}

export function checkTriggerCount(issues: IssueList, nodes: readonly NodeRef[]): NodeRef | undefined {
  const triggers = nodes.filter((n) => n.isTrigger);
  if (triggers.length === 0) {
    issues.add('workflowJson.nodes', 'the graph needs exactly one trigger node; it has none');
    return undefined;
  }
  const [first, ...extra] = triggers;
  for (const t of extra) {
    issues.add(
      `workflowJson.nodes[${t.index}].type`,
      `${nodeName(t.id, t.index)}: a second trigger node (the graph already has ${quote(first.id)}); there must be exactly one`,
    );
  }
  return extra.length === 0 ? first : undefined;
}

/**
 * Reports each edge that closes a cycle, naming the nodes on it. Iterative depth-first search
 * in nodes-array order, so the same graph always yields the same report.
 */
export function checkCycles(issues: IssueList, nodes: readonly NodeRef[], edges: readonly EdgeRef[]): void {
  const outgoing = adjacency(nodes, edges);
  const state = new Map<string, 'open' | 'done'>();
  for (const root of nodes) {
    if (state.has(root.id)) continue;
    // Each frame: node id and how many of its outgoing edges were explored.
    const stack: Array<{ id: string; next: number }> = [{ id: root.id, next: 0 }];
    state.set(root.id, 'open');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const out = outgoing.get(frame.id) ?? [];
      if (frame.next >= out.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const edge = out[frame.next];
      frame.next += 1;
      const seen = state.get(edge.target);
      if (seen === 'open') {
        const from = stack.findIndex((f) => f.id === edge.target);
        const loop = [...stack.slice(from).map((f) => f.id), edge.target].join(' → ');
        issues.add(
          `workflowJson.edges[${edge.index}]`,
          `${edgeName(edge.index, edge.source, edge.target)}: closes a cycle (${loop}); a workflow graph must not loop`,
        );
      } else if (seen === undefined) {
        state.set(edge.target, 'open');
        stack.push({ id: edge.target, next: 0 });
      }
    }
  }
}

export function checkReachable(
  issues: IssueList,
  nodes: readonly NodeRef[],
  edges: readonly EdgeRef[],
  trigger: NodeRef,
): void {
  const outgoing = adjacency(nodes, edges);
  const reached = new Set<string>([trigger.id]);
  const queue = [trigger.id];
  for (let k = 0; k < queue.length; k += 1) {
    for (const edge of outgoing.get(queue[k]) ?? []) {
      if (!reached.has(edge.target)) {
        reached.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  for (const node of nodes) {
    if (!reached.has(node.id)) {
      issues.add(
        `workflowJson.nodes[${node.index}]`,
        `${nodeName(node.id, node.index)} is not reachable from the trigger node ${quote(trigger.id)}`,
      );
    }
  }
}

function adjacency(nodes: readonly NodeRef[], edges: readonly EdgeRef[]): Map<string, EdgeRef[]> {
  const out = new Map<string, EdgeRef[]>(nodes.map((n) => [n.id, []]));
  for (const edge of edges) out.get(edge.source)?.push(edge);
  return out;
}
