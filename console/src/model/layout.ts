// "Tidy up": positions for every node, top to bottom from the trigger, by dagre's layered
// layout. Also the layout of a graph saved without positions (written through the API).
import { Graph, layout } from '@dagrejs/dagre';
import type { WorkflowGraph } from '../../../src/graph/index.ts';
import { graphToCanvas, type Canvas, type XY } from './canvas.ts';

export const NODE_WIDTH = 240;
export const NODE_HEIGHT = 96;

/** Top-left corners by node id (the canvas positions nodes by their corner; dagre by their centre). */
export function tidyLayout(
  nodes: { id: string; width?: number; height?: number }[],
  edges: { source: string; target: string }[],
): Map<string, XY> {
  const g = new Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 48, ranksep: 72, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.width ?? NODE_WIDTH, height: n.height ?? NODE_HEIGHT });
  const ids = new Set(nodes.map((n) => n.id));
  for (const e of edges) if (ids.has(e.source) && ids.has(e.target) && e.source !== e.target) g.setEdge(e.source, e.target);
  layout(g);
  const positions = new Map<string, XY>();
  for (const n of nodes) {
    const placed = g.node(n.id);
    positions.set(n.id, { x: Math.round(placed.x - (n.width ?? NODE_WIDTH) / 2), y: Math.round(placed.y - (n.height ?? NODE_HEIGHT) / 2) });
  }
  return positions;
}

/** A canvas for a graph as the API gave it: nodes saved without a position are laid out. */
export function canvasOf(graph: WorkflowGraph): Canvas {
  const unplaced = graph.nodes.some((n) => !n.position);
  const positions = unplaced ? tidyLayout(graph.nodes, graph.edges) : new Map<string, XY>();
  return graphToCanvas(graph, (id) => positions.get(id) ?? { x: 0, y: 0 });
}
