// Which people a graph names as members of the workspace, and where: the approvers of each
// request_approval. Saving a graph checks that each is a current member or admin (a 400 naming
// the node otherwise); the console offers the workspace's members where a graph names one.

import { childPath } from './issues.ts';
import type { WorkflowGraph } from './types.ts';

/** A member named in a graph: the node, and the path of the value in the request body. */
export interface MemberReference {
  userId: string;
  nodeId: string;
  path: string;
}

/** Every member reference of a (validated) graph, in node order. */
export function memberReferences(graph: WorkflowGraph): MemberReference[] {
  const found: MemberReference[] = [];
  graph.nodes.forEach((node, index) => {
    if (node.type !== 'action' || node.data.actionType !== 'request_approval') return;
    const path = childPath(`workflowJson.nodes[${index}].data`, 'approvers');
    const approvers: unknown = node.data.approvers;
    if (!Array.isArray(approvers)) return;
    approvers.forEach((userId: unknown, k) => {
      if (typeof userId === 'string') found.push({ userId, nodeId: node.id, path: childPath(path, k) });
    });
  });
  return found;
}
