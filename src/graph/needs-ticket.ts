// Which actions a run without a ticket would reach. Every action acts on the run's ticket
// except these four; a run that has none and reaches one of the others can only fail there.
// Without a ticket the run's context never changes (no action can change a ticket it lacks,
// and no customer can reply to it), so the walk is decided by the context it starts with:
// each condition is evaluated once, every wait_for_reply times out, and a request_approval may
// go either way.

import { evaluateCondition } from './conditions.ts';
import type { ActionType, GraphNode, RunContext, WorkflowGraph } from './types.ts';
import { isBranchingNode } from './walker.ts';

export const TICKETLESS_ACTIONS: ReadonlySet<ActionType> = new Set(['http_request', 'delay', 'wait_for_reply', 'request_approval']);

export type TicketAction = { nodeId: string; actionType: ActionType };

/**
 * The actions that need a ticket and that a run without one, starting with `context`, would
 * reach, in nodes-array order. A condition that cannot be evaluated (a pattern that does not
 * compile) counts as going both ways, so the answer never misses an action.
 */
export function ticketActionsReached(graph: WorkflowGraph, context: RunContext): TicketAction[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const reached = new Set<string>();
  const trigger = graph.nodes.find((n) => n.type === 'trigger');
  const queue: GraphNode[] = trigger ? [trigger] : [];
  while (queue.length > 0) {
    const node = queue.shift() as GraphNode;
    if (reached.has(node.id)) continue;
    reached.add(node.id);
    const outcome = outcomeWithoutTicket(node, context);
    for (const edge of graph.edges) {
      if (edge.source !== node.id) continue;
      const taken = !isBranchingNode(node) || outcome === undefined || (edge.label === 'false' ? outcome === false : outcome === true);
      const target = byId.get(edge.target);
      if (taken && target && !reached.has(target.id)) queue.push(target);
    }
  }
  return graph.nodes
    .filter((n) => n.type === 'action' && reached.has(n.id) && !TICKETLESS_ACTIONS.has(n.data.actionType))
    .map((n) => ({ nodeId: n.id, actionType: (n.data as { actionType: ActionType }).actionType }));
}

/** A branching node's outcome in a run without a ticket; undefined when it cannot be known here. */
function outcomeWithoutTicket(node: GraphNode, context: RunContext): boolean | undefined {
  if (node.type === 'action') return node.data.actionType === 'wait_for_reply' ? false : undefined;
  if (node.type !== 'condition') return undefined;
  try {
    return evaluateCondition(node.data, context);
  } catch {
    return undefined;
  }
}

/** `node "tag" (add_tag) needs a ticket`, `nodes "tag" (add_tag) and "reply" (send_reply) need a ticket`. */
export function needsTicketSentence(actions: TicketAction[]): string {
  const names = actions.map((a) => `"${a.nodeId}" (${a.actionType})`);
  if (names.length === 1) return `node ${names[0]} needs a ticket`;
  return `nodes ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} need a ticket`;
}
