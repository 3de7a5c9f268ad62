// Validation problems on the canvas: each `{ path, message }` the API (or the same validator run
// in the page) reports is put on the node or edge it names, and on the field within the node's
// data, so the form can show it beside the input it is about.

import type { Canvas } from './canvas.ts';

export type Issue = { path: string; message: string };

/** `field` is the path inside the node's data (`value`, `conditions[1].value`, `headers["X-Id"]`); '' is the node as a whole. */
export type FieldIssue = { field: string; message: string };

export type CanvasIssues = {
  nodes: Map<string, FieldIssue[]>;
  edges: Map<string, string[]>;
  /** Problems of the request or the graph as a whole (a missing trigger, a name that is too long). */
  general: Issue[];
};

const NODE_PATH = /^workflowJson\.nodes\[(\d+)\](.*)$/;
const EDGE_PATH = /^workflowJson\.edges\[(\d+)\]/;

/**
 * Places issues of a graph that was sent as `canvasToGraph(canvas)`: paths index its nodes and
 * edges in the canvas's order.
 */
export function placeIssues(issues: Issue[], canvas: Canvas): CanvasIssues {
  const placed: CanvasIssues = { nodes: new Map(), edges: new Map(), general: [] };
  for (const issue of issues) {
    const node = NODE_PATH.exec(issue.path);
    if (node) {
      const target = canvas.nodes[Number(node[1])];
      if (target) {
        const rest = node[2];
        const field = rest.startsWith('.data') ? rest.slice('.data'.length).replace(/^\./, '') : rest.replace(/^\./, '');
        const list = placed.nodes.get(target.id) ?? [];
        list.push({ field, message: issue.message });
        placed.nodes.set(target.id, list);
        continue;
      }
    }
    const edge = EDGE_PATH.exec(issue.path);
    if (edge) {
      const target = canvas.edges[Number(edge[1])];
      if (target) {
        placed.edges.set(target.id, [...(placed.edges.get(target.id) ?? []), issue.message]);
        continue;
      }
    }
    placed.general.push(issue);
  }
  return placed;
}

/** The messages about `field` of a node, and those about anything inside it (`conditions[0]` holds `conditions[0].value`). */
export function fieldMessages(issues: FieldIssue[] | undefined, field: string): string[] {
  if (!issues) return [];
  return issues
    .filter((i) => i.field === field || i.field.startsWith(`${field}.`) || i.field.startsWith(`${field}[`))
    .map((i) => i.message);
}

/** Messages about the node that no field of its form shows. */
export function unplacedMessages(issues: FieldIssue[] | undefined, shownFields: string[]): string[] {
  if (!issues) return [];
  return issues
    .filter((i) => i.field === '' || !shownFields.some((f) => i.field === f || i.field.startsWith(`${f}.`) || i.field.startsWith(`${f}[`)))
    .map((i) => i.message);
}
