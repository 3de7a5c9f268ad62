// The graph <-> canvas mapping: a workflow's `workflowJson` as the nodes and edges the canvas
// draws, and back. Pure functions (no React, no DOM), unit-tested in test/unit/console.
//
// Everything of a node the canvas does not edit (keys besides id, type, data and position) is
// carried along untouched, so a graph written by another client survives a round trip.

import { isBranchingNode, type GraphEdge, type GraphNode, type NodeType, type WorkflowGraph } from '../../../src/graph/index.ts';

export type XY = { x: number; y: number };

export type CanvasNodeData = {
  /** The node's `data` as the API has it. */
  data: Record<string, unknown>;
  /** Other keys of the node, kept as they were. */
  extra: Record<string, unknown>;
};

export type CanvasNode = { id: string; type: NodeType; position: XY; data: CanvasNodeData };

/** `sourceHandle` is the branch an edge leaves a condition or wait_for_reply by. */
export type CanvasEdge = {
  id: string;
  source: string;
  target: string;
  sourceHandle: 'true' | 'false' | null;
  label?: 'true' | 'false';
  /** The edge's own `id` in the graph, when it had one. */
  data: { graphId?: string };
};

export type Canvas = { nodes: CanvasNode[]; edges: CanvasEdge[] };

const isXY = (p: unknown): p is XY =>
  typeof p === 'object' && p !== null && Number.isFinite((p as XY).x) && Number.isFinite((p as XY).y);

/** Whether edges leaving this node carry a true/false label (a condition, a wait_for_reply). */
export function branches(node: { type: string; data: Record<string, unknown> }): boolean {
  return isBranchingNode({ id: '', type: node.type, data: node.data } as unknown as GraphNode);
}

/** The canvas of a graph. Nodes without a position get `fallback(id)` (a layout computed by the caller). */
export function graphToCanvas(graph: WorkflowGraph, fallback: (id: string) => XY = () => ({ x: 0, y: 0 })): Canvas {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes = graph.nodes.map((node): CanvasNode => {
    const { id, type, data, position, ...extra } = node as GraphNode & Record<string, unknown>;
    return { id, type, position: isXY(position) ? { x: position.x, y: position.y } : fallback(id), data: { data: { ...data }, extra } };
  });
  const edges = graph.edges.map((edge, index): CanvasEdge => {
    const source = byId.get(edge.source);
    const branching = source !== undefined && branches(source as unknown as { type: string; data: Record<string, unknown> });
    const handle = branching ? (edge.label === 'false' ? 'false' : 'true') : null;
    return {
      id: edge.id ?? edgeKey(edge, index),
      source: edge.source,
      target: edge.target,
      sourceHandle: handle,
      ...(handle ? { label: handle } : {}),
      data: edge.id !== undefined ? { graphId: edge.id } : {},
    };
  });
  return { nodes, edges };
}

/** A canvas id for an edge without one of its own, stable across reloads of the same graph. */
export function edgeKey(edge: Pick<GraphEdge, 'source' | 'target' | 'label'>, index: number): string {
  return `e${index}:${edge.source}>${edge.target}:${edge.label ?? ''}`;
}

/**
 * The graph a canvas shows, as the API takes it. Edges leaving a branching node carry the
 * label of the handle they leave by; other edges carry none (a node that stopped branching
 * sheds its labels rather than being refused).
 */
export function canvasToGraph(canvas: Canvas): WorkflowGraph {
  const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
  const nodes = canvas.nodes.map(
    (n) =>
      ({
        ...n.data.extra,
        id: n.id,
        type: n.type,
        data: n.data.data,
        position: { x: Math.round(n.position.x), y: Math.round(n.position.y) },
      }) as unknown as GraphNode,
  );
  const edges = canvas.edges.map((e): GraphEdge => {
    const source = byId.get(e.source);
    const branching = source !== undefined && branches({ type: source.type, data: source.data.data });
    return {
      ...(e.data.graphId !== undefined ? { id: e.data.graphId } : {}),
      source: e.source,
      target: e.target,
      ...(branching ? { label: e.sourceHandle === 'false' ? 'false' : 'true' } : {}),
    };
  });
  return { nodes, edges };
}

/** Re-derives the labels of the edges leaving `nodeId` after its type changed (an action became wait_for_reply). */
export function relabelEdges(canvas: Canvas): CanvasEdge[] {
  const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
  return canvas.edges.map((e) => {
    const source = byId.get(e.source);
    const branching = source !== undefined && branches({ type: source.type, data: source.data.data });
    if (branching) {
      const handle = e.sourceHandle === 'false' ? 'false' : 'true';
      return e.sourceHandle === handle && e.label === handle ? e : { ...e, sourceHandle: handle, label: handle };
    }
    if (e.sourceHandle === null && e.label === undefined) return e;
    const { label: _label, ...rest } = e;
    return { ...rest, sourceHandle: null };
  });
}

/**
 * Adds an edge for a connection drawn on the canvas, unless it would repeat one (same source,
 * target and branch) or loop on itself; the server refuses cycles and edges into the trigger,
 * naming the edge, so those are left for it to explain.
 */
export function connect(canvas: Canvas, source: string, target: string, handle: string | null | undefined): CanvasEdge[] {
  if (source === target) return canvas.edges;
  const from = canvas.nodes.find((n) => n.id === source);
  if (!from) return canvas.edges;
  const branching = branches({ type: from.type, data: from.data.data });
  const sourceHandle = branching ? (handle === 'false' ? 'false' : 'true') : null;
  if (canvas.edges.some((e) => e.source === source && e.target === target && e.sourceHandle === sourceHandle)) return canvas.edges;
  const edge: CanvasEdge = {
    id: uniqueEdgeId(canvas.edges, `${source}>${target}:${sourceHandle ?? ''}`),
    source,
    target,
    sourceHandle,
    ...(sourceHandle ? { label: sourceHandle } : {}),
    data: {},
  };
  return [...canvas.edges, edge];
}

function uniqueEdgeId(edges: CanvasEdge[], base: string): string {
  const taken = new Set(edges.map((e) => e.id));
  let id = `new:${base}`;
  for (let n = 2; taken.has(id); n++) id = `new:${base}#${n}`;
  return id;
}

/** A node id not used yet, readable: `set-priority`, `set-priority-2`, … (1-100 characters, as the API requires). */
export function freshNodeId(taken: Iterable<string>, base: string): string {
  const used = new Set(taken);
  const stem = base.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 90) || 'node';
  if (!used.has(stem)) return stem;
  for (let n = 2; ; n++) if (!used.has(`${stem}-${n}`)) return `${stem}-${n}`;
}

/** The graphs are the same to the API (compared as canonical JSON: key order does not matter). */
export function sameGraph(a: WorkflowGraph, b: WorkflowGraph): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}

/** Removes nodes (never the trigger: a graph has exactly one) and every edge touching them. */
export function removeNodes(canvas: Canvas, ids: Iterable<string>): Canvas {
  const gone = new Set([...ids].filter((id) => canvas.nodes.find((n) => n.id === id)?.type !== 'trigger'));
  return {
    nodes: canvas.nodes.filter((n) => !gone.has(n.id)),
    edges: canvas.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)),
  };
}

/**
 * What a copy carries: the selected nodes (never the trigger) and the edges between them.
 * Pasting gives them fresh ids, keeps their edges among themselves, and moves them by `offset`.
 */
export type Clip = { nodes: CanvasNode[]; edges: CanvasEdge[] };

export function copy(canvas: Canvas, selected: Iterable<string>): Clip | undefined {
  const ids = new Set([...selected].filter((id) => canvas.nodes.find((n) => n.id === id && n.type !== 'trigger')));
  if (ids.size === 0) return undefined;
  return {
    nodes: structuredClone(canvas.nodes.filter((n) => ids.has(n.id))),
    edges: structuredClone(canvas.edges.filter((e) => ids.has(e.source) && ids.has(e.target))),
  };
}

export function paste(canvas: Canvas, clip: Clip, offset: XY = { x: 40, y: 40 }): { canvas: Canvas; pasted: string[] } {
  const renamed = new Map<string, string>();
  const taken = new Set(canvas.nodes.map((n) => n.id));
  const nodes = clip.nodes.map((n) => {
    const id = freshNodeId(taken, n.id.replace(/-\d+$/, ''));
    taken.add(id);
    renamed.set(n.id, id);
    return { ...structuredClone(n), id, position: { x: n.position.x + offset.x, y: n.position.y + offset.y } };
  });
  let edges = canvas.edges;
  const next = { nodes: [...canvas.nodes, ...nodes], edges };
  for (const e of clip.edges) {
    edges = connect({ ...next, edges }, renamed.get(e.source)!, renamed.get(e.target)!, e.sourceHandle);
  }
  return { canvas: { nodes: next.nodes, edges }, pasted: nodes.map((n) => n.id) };
}
