// Walking a validated graph (docs/automations.md, "How a run walks the graph"), as runGraph does:
//
// - Execution starts at the trigger node and follows edges.
// - A condition node, a wait_for_reply or a request_approval action completes with an outcome: its edges labelled
//   "true" (or unlabelled) are taken when the outcome is true, those labelled "false" when it
//   is false; the others become dead. Every edge out of any other node is taken.
// - A node becomes ready once ALL its incoming edges are decided (taken or dead) and at least
//   one was taken, so a join runs once, after every branch that will reach it has arrived.
// - A node whose incoming edges are all dead is skipped and its outgoing edges die too
//   (dead-path elimination), so a branch not taken never blocks a join further down.
//
// The walker only tracks state; running nodes is the caller's business. It keeps its state in
// the instance and orders every answer by the nodes array, so a replayed workflow sees the
// same sequence of decisions.

import { BRANCHING_ACTIONS } from './types.ts';
import type { GraphEdge, GraphNode, TriggerNode, WorkflowGraph } from './types.ts';

type NodeState = 'waiting' | 'running' | 'done' | 'skipped';
type EdgeState = 'undecided' | 'taken' | 'dead';

export function nodeById(graph: WorkflowGraph): Map<string, GraphNode> {
  return new Map(graph.nodes.map((n) => [n.id, n]));
}

export function findTriggerNode(graph: WorkflowGraph): TriggerNode | undefined {
  return graph.nodes.find((n): n is TriggerNode => n.type === 'trigger');
}

/** Nodes that complete with a true/false outcome and choose edges by label. */
export function isBranchingNode(node: GraphNode): boolean {
  return node.type === 'condition' || (node.type === 'action' && (BRANCHING_ACTIONS as readonly string[]).includes(node.data.actionType));
}

/**
 * Splits the outgoing edges of `node` into those followed and those not followed after it
 * completed. For a branching node `outcome` is its result (anything but `true` counts as
 * false); for other nodes it is ignored and every edge is taken. Graph order is kept.
 */
export function outcomeEdges(
  graph: WorkflowGraph,
  node: GraphNode,
  outcome?: boolean,
): { taken: GraphEdge[]; notTaken: GraphEdge[] } {
  const taken: GraphEdge[] = [];
  const notTaken: GraphEdge[] = [];
  const branching = isBranchingNode(node);
  const holds = outcome === true;
  for (const edge of graph.edges) {
    if (edge.source !== node.id) continue;
    const wanted = !branching || (edge.label === 'false' ? !holds : holds);
    (wanted ? taken : notTaken).push(edge);
  }
  return { taken, notTaken };
}

export class GraphWalker {
  readonly #graph: WorkflowGraph;
  readonly #nodes: Map<string, GraphNode>;
  readonly #order: Map<string, number>;
  readonly #incoming = new Map<string, number[]>();
  readonly #nodeState = new Map<string, NodeState>();
  readonly #edgeState: EdgeState[];
  #started = false;

  constructor(graph: WorkflowGraph) {
    this.#graph = graph;
    this.#nodes = nodeById(graph);
    this.#order = new Map(graph.nodes.map((n, i) => [n.id, i]));
    for (const node of graph.nodes) {
      this.#incoming.set(node.id, []);
      this.#nodeState.set(node.id, 'waiting');
    }
    this.#edgeState = graph.edges.map(() => 'undecided');
    graph.edges.forEach((edge, i) => {
      // Edges to unknown nodes cannot occur in a validated graph; ignoring them keeps the
      // walker total if one slips through.
      if (this.#nodes.has(edge.source)) this.#incoming.get(edge.target)?.push(i);
    });
  }

  /** Marks the trigger node running and returns it. */
  start(): string[] {
    if (this.#started) throw new Error('GraphWalker.start() called twice');
    this.#started = true;
    const trigger = findTriggerNode(this.#graph);
    if (trigger === undefined) throw new Error('graph has no trigger node');
    this.#nodeState.set(trigger.id, 'running');
    return [trigger.id];
  }

  /**
   * Records that a running node finished. `outcome` is required for a condition or a
   * branching action (wait_for_reply, request_approval). Returns the nodes that became ready (now counted as running), in
   * nodes-array order.
   */
  complete(nodeId: string, outcome?: boolean): string[] {
    const node = this.#nodes.get(nodeId);
    if (node === undefined) throw new Error(`unknown node "${nodeId}"`);
    if (this.#nodeState.get(nodeId) !== 'running') {
      throw new Error(`node "${nodeId}" is not running (state: ${this.#nodeState.get(nodeId)})`);
    }
    if (isBranchingNode(node) && typeof outcome !== 'boolean') {
      throw new Error(`node "${nodeId}" needs a true/false outcome`);
    }
    this.#nodeState.set(nodeId, 'done');
    const branching = isBranchingNode(node);
    const touched: string[] = [];
    this.#graph.edges.forEach((edge, i) => {
      if (edge.source !== nodeId) return;
      const taken = !branching || (edge.label === 'false' ? outcome === false : outcome === true);
      this.#edgeState[i] = taken ? 'taken' : 'dead';
      touched.push(edge.target);
    });
    const ready = this.#settle(touched);
    for (const id of ready) this.#nodeState.set(id, 'running');
    return ready;
  }

  /** Nothing running and nothing ready: the run is over. */
  isFinished(): boolean {
    if (!this.#started) return false;
    for (const state of this.#nodeState.values()) if (state === 'running') return false;
    return true;
  }

  /** Nodes known never to run (all their incoming edges dead), in nodes-array order. */
  skipped(): string[] {
    return this.#graph.nodes.filter((n) => this.#nodeState.get(n.id) === 'skipped').map((n) => n.id);
  }

  /** Nodes started and not completed yet, in nodes-array order. */
  running(): string[] {
    return this.#graph.nodes.filter((n) => this.#nodeState.get(n.id) === 'running').map((n) => n.id);
  }

  /** Nodes that completed, in nodes-array order. */
  completed(): string[] {
    return this.#graph.nodes.filter((n) => this.#nodeState.get(n.id) === 'done').map((n) => n.id);
  }

  /**
   * Re-examines the nodes whose incoming edges just changed, skipping the dead ones and
   * cascading through their outgoing edges; returns the nodes that became ready.
   */
  #settle(targets: string[]): string[] {
    const ready = new Set<string>();
    const queue = [...targets];
    while (queue.length > 0) {
      const id = queue.shift() as string;
      if (this.#nodeState.get(id) !== 'waiting' || ready.has(id)) continue;
      const incoming = (this.#incoming.get(id) ?? []).map((i) => this.#edgeState[i]);
      if (incoming.includes('undecided')) continue;
      if (incoming.includes('taken')) {
        ready.add(id);
        continue;
      }
      this.#nodeState.set(id, 'skipped');
      this.#graph.edges.forEach((edge, i) => {
        if (edge.source !== id) return;
        this.#edgeState[i] = 'dead';
        queue.push(edge.target);
      });
    }
    return [...ready].sort((a, b) => (this.#order.get(a) ?? 0) - (this.#order.get(b) ?? 0));
  }
}
