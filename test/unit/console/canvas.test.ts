// The graph <-> canvas mapping of the console (console/src/model/canvas.ts).
import { describe, expect, it } from 'vitest';
import { validateGraph, type WorkflowGraph } from '../../../src/graph/index.ts';
import {
  canvasToGraph,
  connect,
  copy,
  freshNodeId,
  graphToCanvas,
  paste,
  relabelEdges,
  removeNodes,
  sameGraph,
  type Canvas,
} from '../../../console/src/model/canvas.ts';
import { escalateUrgent } from '../../helpers/graphs.ts';

/** The README's "Escalate urgent tickets", as the API stores it (no positions, unlabelled join edges). */
const urgent = () => escalateUrgent().workflowJson as unknown as WorkflowGraph;

const at = (x: number, y: number) => () => ({ x, y });

describe('graphToCanvas / canvasToGraph', () => {
  it('round-trips a graph: same nodes, data and edges, with the positions the canvas gave', () => {
    const canvas = graphToCanvas(urgent(), at(10, 20));
    const back = canvasToGraph(canvas);
    expect(back.nodes.map((n) => [n.id, n.type, n.data])).toEqual(urgent().nodes.map((n) => [n.id, n.type, n.data]));
    expect(back.nodes.every((n) => JSON.stringify(n.position) === '{"x":10,"y":20}')).toBe(true);
    expect(back.edges).toEqual(urgent().edges);
    expect(validateGraph(back, 'ticket_created').ok).toBe(true);
  });

  it('keeps keys of a node it does not edit, and an edge id', () => {
    const graph = urgent();
    (graph.nodes[2] as unknown as Record<string, unknown>).note = { by: 'another editor' };
    graph.edges[0].id = 'first';
    const back = canvasToGraph(graphToCanvas(graph));
    expect((back.nodes[2] as unknown as Record<string, unknown>).note).toEqual({ by: 'another editor' });
    expect(back.edges[0]).toEqual({ id: 'first', source: 'created', target: 'is-urgent' });
  });

  it('uses saved positions, rounded on the way back', () => {
    const graph = urgent();
    graph.nodes[0].position = { x: 1.4, y: 2.6 };
    const canvas = graphToCanvas(graph, at(99, 99));
    expect(canvas.nodes[0].position).toEqual({ x: 1.4, y: 2.6 });
    expect(canvas.nodes[1].position).toEqual({ x: 99, y: 99 });
    expect(canvasToGraph(canvas).nodes[0].position).toEqual({ x: 1, y: 3 });
  });

  it('draws edges leaving a condition from its true or false handle; an unlabelled one is true and gets its label', () => {
    const graph = urgent();
    graph.edges.push({ source: 'is-urgent', target: 'reply', label: 'false' });
    delete graph.edges[1].label;
    const canvas = graphToCanvas(graph);
    expect(canvas.edges.map((e) => [e.sourceHandle, e.label ?? null])).toEqual([
      [null, null],
      ['true', 'true'],
      ['true', 'true'],
      [null, null],
      [null, null],
      ['false', 'false'],
    ]);
    expect(canvasToGraph(canvas).edges[1]).toEqual({ source: 'is-urgent', target: 'raise', label: 'true' });
  });

  it('gives every edge a distinct canvas id', () => {
    const canvas = graphToCanvas(urgent());
    expect(new Set(canvas.edges.map((e) => e.id)).size).toBe(canvas.edges.length);
  });

  it('sameGraph ignores key order and nothing else', () => {
    const a = urgent();
    const b = JSON.parse(JSON.stringify(a, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)));
    expect(sameGraph(a, b)).toBe(true);
    b.nodes[3].data.tag = 'other';
    expect(sameGraph(a, b)).toBe(false);
  });
});

describe('editing the canvas', () => {
  const canvas = (): Canvas => graphToCanvas(urgent());

  it('connect adds an edge, from the branch drawn when the source branches, and not twice', () => {
    const c = canvas();
    const edges = connect(c, 'is-urgent', 'reply', 'false');
    expect(edges.at(-1)).toMatchObject({ source: 'is-urgent', target: 'reply', sourceHandle: 'false', label: 'false' });
    expect(connect({ ...c, edges }, 'is-urgent', 'reply', 'false')).toBe(edges);
    const plain = connect(c, 'created', 'reply', 'false');
    expect(plain.at(-1)).toMatchObject({ sourceHandle: null });
    expect(plain.at(-1)).not.toHaveProperty('label');
    expect(connect(c, 'reply', 'reply', null)).toBe(c.edges);
  });

  it('removeNodes drops nodes with their edges, never the trigger', () => {
    const c = removeNodes(canvas(), ['raise', 'created']);
    expect(c.nodes.map((n) => n.id)).toEqual(['created', 'is-urgent', 'tag', 'reply']);
    expect(c.edges.map((e) => `${e.source}>${e.target}`)).toEqual(['created>is-urgent', 'is-urgent>tag', 'tag>reply']);
  });

  it('copy and paste give fresh ids, keep the edges among the copies, and leave the trigger out', () => {
    const c = canvas();
    const clip = copy(c, ['created', 'raise', 'reply'])!;
    expect(clip.nodes.map((n) => n.id)).toEqual(['raise', 'reply']);
    const { canvas: pasted, pasted: ids } = paste(c, clip);
    expect(ids).toEqual(['raise-2', 'reply-2']);
    expect(pasted.nodes).toHaveLength(7);
    expect(pasted.edges.at(-1)).toMatchObject({ source: 'raise-2', target: 'reply-2' });
    expect(pasted.nodes.find((n) => n.id === 'raise-2')!.position).toEqual({ x: c.nodes[2].position.x + 40, y: c.nodes[2].position.y + 40 });
    expect(copy(c, ['created'])).toBeUndefined();
  });

  it('freshNodeId makes readable ids the API accepts', () => {
    expect(freshNodeId([], 'set_priority')).toBe('set-priority');
    expect(freshNodeId(['set-priority', 'set-priority-2'], 'set_priority')).toBe('set-priority-3');
    expect(freshNodeId([], '***')).toBe('node');
    expect(freshNodeId([], 'x'.repeat(300)).length).toBeLessThanOrEqual(100);
  });

  it('relabelEdges follows a node that starts or stops branching', () => {
    const c = canvas();
    const tag = c.nodes.find((n) => n.id === 'tag')!;
    tag.data.data = { actionType: 'wait_for_reply', timeoutSeconds: 60 };
    const edges = relabelEdges(c);
    expect(edges.find((e) => e.source === 'tag')).toMatchObject({ sourceHandle: 'true', label: 'true' });
    tag.data.data = { actionType: 'add_tag', tag: 'x' };
    const back = relabelEdges({ ...c, edges });
    expect(back.find((e) => e.source === 'tag')).toMatchObject({ sourceHandle: null });
    expect(back.find((e) => e.source === 'tag')).not.toHaveProperty('label');
    expect(validateGraph(canvasToGraph({ ...c, edges: back }), 'ticket_created').ok).toBe(true);
  });
});
