// A run painted on the canvas: every node's status (from an execution's steps, or a dry run's),
// nodes the run did not reach, and the edges it followed. A layer over the canvas, computed
// apart from it, so the same graph can show the last run, a dry run or nothing.

import { branches, type Canvas } from './canvas.ts';

export type Step = {
  nodeId: string;
  status: string;
  result?: unknown;
  error?: string;
  startedAt?: string;
  completedAt?: string | null;
  /** Dry runs: an action's parameters with the templates filled. */
  action?: Record<string, unknown>;
  waitSeconds?: number;
  /** A delay's or wait_for_reply's deadline (ISO 8601), fixed when the wait begins. */
  until?: string;
};

/**
 * A node's part in a run. `not_reached`: the run is over and never came here; `pending`: not
 * (yet) reached while it runs. `simulated`: a dry run's or a backtest's, where nothing was done.
 */
export type NodeRun = Step & { reached: boolean; simulated?: boolean };

export type RunOverlay = {
  nodes: Map<string, NodeRun>;
  /** Canvas ids of the edges the run followed. */
  followed: Set<string>;
  /** Steps of nodes the canvas does not have (the run used another version of the graph). */
  missing: string[];
};

export const FINISHED = ['completed', 'failed', 'cancelled'];

/** Statuses after which a node's outgoing edges were followed. */
const DONE = ['passed', 'completed'];

/**
 * The overlay of a run's `steps` on `canvas`. `finished` says whether the run is over: then the
 * nodes without a step were not reached, else they may still be. `simulated`: the steps of a
 * dry run or a backtest.
 */
export function runOverlay(canvas: Canvas, steps: Step[], finished: boolean, simulated = false): RunOverlay {
  const nodes = new Map<string, NodeRun>();
  const onCanvas = new Set(canvas.nodes.map((n) => n.id));
  const missing: string[] = [];
  for (const step of steps) {
    if (!onCanvas.has(step.nodeId)) missing.push(step.nodeId);
    else nodes.set(step.nodeId, { ...step, reached: true, ...(simulated ? { simulated } : {}) });
  }
  for (const node of canvas.nodes) {
    if (!nodes.has(node.id)) nodes.set(node.id, { nodeId: node.id, status: finished ? 'not_reached' : 'pending', reached: false });
  }
  const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
  const followed = new Set<string>();
  for (const edge of canvas.edges) {
    const from = nodes.get(edge.source);
    const source = byId.get(edge.source);
    if (!from?.reached || !DONE.includes(from.status) || !source) continue;
    if (branches({ type: source.type, data: source.data.data })) {
      const outcome = branchOf(from.result, source.data.data);
      const branch = outcome === true ? 'true' : outcome === false ? 'false' : undefined;
      if (branch === undefined || (edge.sourceHandle ?? 'true') !== branch) continue;
    }
    followed.add(edge.id);
  }
  return { nodes, followed, missing };
}

/**
 * The branch a branching node's step took: its result when that is true or false (a condition, a
 * wait_for_reply, a dry run's request_approval); for a run's request_approval, its decision
 * (`approved` is true, `rejected` false, `expired` as the node's `onTimeout` says). Undefined
 * while it waits.
 */
export function branchOf(result: unknown, data: Record<string, unknown>): boolean | undefined {
  if (typeof result === 'boolean') return result;
  const decision = (result as { decision?: unknown } | null | undefined)?.decision;
  if (decision === 'approved') return true;
  if (decision === 'rejected') return false;
  if (decision === 'expired') return data.onTimeout === 'approve';
  return undefined;
}

/** How long a step took, for people: `120 ms`, `4.2 s`, `3 min 5 s`, or undefined while it runs. */
export function duration(startedAt: string | undefined, completedAt: string | null | undefined): string | undefined {
  if (!startedAt || !completedAt) return undefined;
  const ms = Date.parse(completedAt) - Date.parse(startedAt);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
