// The workflow editor's state: the workflow as the server last answered, the canvas with its
// undo history, the name and description being typed, what is selected, and where a save or an
// activation stands. `editorReducer` is pure: it takes what the user did and what the API
// answered (console/src/pages/editor/useEditor.ts makes the calls); what the page shows is read
// from the state by the functions below it. Unit-tested in test/unit/console/editor.test.ts.

import { validateGraph, type TriggerType, type WorkflowGraph } from '../../../src/graph/index.ts';
import { ApiError, notSaved, type Workflow, type WorkflowPatch } from '../api-types.ts';
import { canvasToGraph, connect, copy, freshNodeId, paste, relabelEdges, removeNodes, sameGraph, type Canvas, type CanvasNode, type Clip, type XY } from './canvas.ts';
import { newActionData, newConditionData } from './fields.ts';
import * as H from './history.ts';
import { placeIssues, type CanvasIssues } from './issues.ts';
import { canvasOf, NODE_HEIGHT, tidyLayout } from './layout.ts';
import type { RunOverlay } from './overlay.ts';

/** What was saved last: the edits are compared with it to tell whether there is anything to save. */
export type Baseline = { graph: WorkflowGraph; name: string; description: string };

/** The workflow being edited, once read. */
export type Draft = {
  /** As the server last answered (its version, whether it is active). */
  workflow: Workflow;
  etag: string | null;
  baseline: Baseline;
  history: H.History<Canvas>;
  name: string;
  description: string;
};

/** What "Overwrite with mine" sends again after a colleague's save refused it. */
export type Retry = { kind: 'save' } | { kind: 'activate'; isActive: boolean };
export type Conflict = { etag: string | null; version: number | null; retry: Retry };

export type Size = { width: number; height: number };

/**
 * What the canvas reports of its nodes and edges (React Flow's NodeChange and EdgeChange): the
 * editor acts on drags, selections and measured sizes; nodes and edges change through actions.
 */
export type CanvasChange =
  | { type: 'position'; id: string; position?: XY; dragging?: boolean }
  | { type: 'select'; id: string; selected: boolean }
  | { type: 'dimensions'; id: string; dimensions?: Size }
  | { type: 'add' | 'remove' | 'replace' };

/** A node the palette adds: a condition on an operator, an all/any group, or an action. */
export type NewNode = { kind: 'condition'; operator: string } | { kind: 'group' } | { kind: 'action'; actionType: string };

export type EditorState = {
  /** Null until the workflow is read. */
  draft: Draft | null;
  selectedNodes: ReadonlySet<string>;
  selectedEdges: ReadonlySet<string>;
  /** Node sizes as the canvas measured them (for "Tidy up"). */
  measured: ReadonlyMap<string, Size>;
  /** The server's objections to the last save, shown while the canvas is the one it saw. */
  serverIssues: { canvas: Canvas; issues: CanvasIssues } | null;
  error: unknown;
  notice: string | null;
  /** What the agent should do first, after a click that could not be done as it was (the palette with no node to follow). */
  hint: string | null;
  conflict: Conflict | null;
  /** A dry run or backtest painted on the canvas. */
  overlay: RunOverlay | null;
  tab: 'edit' | 'try';
  saving: boolean;
  /** What Ctrl+C copied. */
  clip: Clip | undefined;
  /** Moves of one drag are one undo step: the drag's number names that step. */
  drag: { session: number; active: boolean };
};

export type EditorAction =
  | { type: 'loaded'; workflow: Workflow; etag: string | null }
  | { type: 'loadFailed'; error: unknown }
  | { type: 'rename'; name: string }
  | { type: 'describe'; description: string }
  | { type: 'add'; node: NewNode }
  | { type: 'removeSelected' }
  | { type: 'tidy' }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'copy' }
  | { type: 'paste' }
  /** What the canvas reports: nodes dragged, selected or measured. `at` (ms) joins a drag's moves into one step. */
  | { type: 'nodesChanged'; changes: CanvasChange[]; at: number }
  | { type: 'edgesChanged'; changes: CanvasChange[] }
  | { type: 'connect'; connection: { source: string; target: string; sourceHandle?: string | null } }
  /** A node's form changed `field`; typing in one field within a moment of `at` is one step. */
  | { type: 'editNode'; id: string; data: Record<string, unknown>; field: string; at: number }
  | { type: 'changeTrigger'; triggerType: TriggerType }
  | { type: 'showTab'; tab: 'edit' | 'try' }
  | { type: 'overlay'; overlay: RunOverlay | null }
  | { type: 'saveStarted' }
  /** `baseline` is what was sent: edits made while the save was under way stay unsaved. */
  | { type: 'saved'; workflow: Workflow; etag: string | null; baseline: Baseline }
  /** `canvas` is the one that was sent, which the server's objections are placed on. */
  | { type: 'saveFailed'; error: unknown; canvas: Canvas }
  | { type: 'activationStarted' }
  | { type: 'activated'; workflow: Workflow; etag: string | null }
  | { type: 'activationFailed'; error: unknown }
  | { type: 'conflicted'; conflict: Conflict }
  /** The error or notice banner dismissed, the conflict dialog closed ("Keep editing"). */
  | { type: 'dismiss'; what: 'error' | 'notice' | 'conflict' | 'hint' };

const none: ReadonlySet<string> = new Set();

export function initialEditorState(): EditorState {
  return {
    draft: null,
    selectedNodes: none,
    selectedEdges: none,
    measured: new Map(),
    serverIssues: null,
    error: null,
    notice: null,
    hint: null,
    conflict: null,
    overlay: null,
    tab: 'edit',
    saving: false,
    clip: undefined,
    drag: { session: 0, active: false },
  };
}

/** The draft of a workflow as read: its graph laid out where it has no positions, nothing edited yet. */
export function draftOf(workflow: Workflow, etag: string | null): Draft {
  const canvas = canvasOf(workflow.workflowJson);
  const description = workflow.description ?? '';
  return { workflow, etag, baseline: { graph: canvasToGraph(canvas), name: workflow.name, description }, history: H.start(canvas), name: workflow.name, description };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case 'loaded':
      return { ...state, draft: draftOf(action.workflow, action.etag), serverIssues: null, selectedNodes: none, selectedEdges: none, overlay: null, error: null };
    case 'loadFailed':
    case 'activationFailed':
      return { ...state, error: action.error };
    case 'showTab':
      return { ...state, tab: action.tab, overlay: action.tab === 'edit' ? null : state.overlay };
    case 'overlay':
      return { ...state, overlay: action.overlay };
    case 'dismiss':
      return { ...state, [action.what]: null };
    case 'saveStarted':
    case 'saved':
    case 'saveFailed':
    case 'activationStarted':
    case 'activated':
    case 'conflicted':
      return answered(state, action);
    default:
      return state.draft ? edited(state, state.draft, action) : state;
  }
}

type Answer = Extract<EditorAction, { type: 'saveStarted' | 'saved' | 'saveFailed' | 'activationStarted' | 'activated' | 'conflicted' }>;

/** A save or an activation: begun, answered, or refused. */
function answered(state: EditorState, action: Answer): EditorState {
  switch (action.type) {
    case 'saveStarted':
      // With nothing to send, nothing is sent; the banners go all the same.
      return { ...state, saving: state.draft !== null && savePatch(state.draft) !== null, error: null, notice: null };
    case 'saved': {
      const draft = state.draft && { ...state.draft, workflow: action.workflow, etag: action.etag, baseline: action.baseline };
      return { ...state, draft, saving: false, serverIssues: null, conflict: null, notice: `Saved: version ${action.workflow.version}.` };
    }
    case 'saveFailed':
      return { ...state, saving: false, ...refusal(action.error, action.canvas) };
    case 'activationStarted':
      return { ...state, error: null };
    case 'activated': {
      const draft = state.draft && { ...state.draft, workflow: action.workflow, etag: action.etag };
      const notice = action.workflow.isActive ? 'Active: it now runs on its trigger (the saved version).' : 'Inactive: it no longer runs on its trigger.';
      return { ...state, draft, conflict: null, notice };
    }
    case 'conflicted':
      return { ...state, conflict: action.conflict, saving: action.conflict.retry.kind === 'save' ? false : state.saving };
  }
}

/** A failed save: the server's objections go on the nodes and fields they name, the rest in the banner. */
function refusal(error: unknown, canvas: Canvas): Pick<EditorState, 'error'> & Partial<EditorState> {
  if (!(error instanceof ApiError && error.code === 'validation_failed')) return { error };
  const placed = placeIssues(error.details, canvas);
  return { serverIssues: { canvas, issues: placed }, error: notSaved(error, placed.general) };
}

type Edit = Exclude<EditorAction, Answer | { type: 'loaded' | 'loadFailed' | 'activationFailed' | 'showTab' | 'overlay' | 'dismiss' }>;

/** What the user did to the workflow being edited. */
function edited(state: EditorState, draft: Draft, action: Edit): EditorState {
  const canvas = draft.history.present;
  const step = (next: Canvas, coalesce?: { key: string; at: number }): Draft => ({ ...draft, history: H.record(draft.history, next, coalesce && { coalesce: coalesce.key, at: coalesce.at }) });
  switch (action.type) {
    case 'rename':
      return { ...state, draft: { ...draft, name: action.name } };
    case 'describe':
      return { ...state, draft: { ...draft, description: action.description } };
    case 'undo':
      return { ...state, draft: { ...draft, history: H.undo(draft.history) } };
    case 'redo':
      return { ...state, draft: { ...draft, history: H.redo(draft.history) } };
    case 'add': {
      const anchor = anchorOf(canvas, state.selectedNodes);
      if (!anchor) return { ...state, hint: SELECT_FIRST };
      const added = addNode(canvas, action.node, anchor, triggerTypeOf(draft));
      return { ...state, draft: step(added.canvas), selectedNodes: new Set([added.id]), selectedEdges: none, hint: null };
    }
    case 'removeSelected': {
      const nodes = [...state.selectedNodes].filter((id) => canvas.nodes.find((n) => n.id === id)?.type !== 'trigger');
      if (nodes.length === 0 && state.selectedEdges.size === 0) return state;
      const without = removeNodes(canvas, nodes);
      const next = { nodes: without.nodes, edges: without.edges.filter((e) => !state.selectedEdges.has(e.id)) };
      return { ...state, draft: step(next), selectedNodes: none, selectedEdges: none };
    }
    case 'tidy':
      return { ...state, draft: step(tidied(canvas, state.measured)) };
    case 'copy':
      return { ...state, clip: copy(canvas, state.selectedNodes) ?? state.clip };
    case 'paste': {
      if (!state.clip) return state;
      const { canvas: next, pasted } = paste(canvas, state.clip);
      return { ...state, draft: step(next), selectedNodes: new Set(pasted), selectedEdges: none };
    }
    case 'nodesChanged':
      return nodesChanged(state, draft, action.changes, action.at);
    case 'edgesChanged': {
      const selection = selectionAfter(state.selectedEdges, action.changes);
      return selection ? { ...state, selectedEdges: selection } : state;
    }
    case 'connect':
      return { ...state, draft: step({ nodes: canvas.nodes, edges: connect(canvas, action.connection.source, action.connection.target, action.connection.sourceHandle) }) };
    case 'editNode': {
      const nodes = canvas.nodes.map((n) => (n.id === action.id ? { ...n, data: { ...n.data, data: action.data } } : n));
      return { ...state, draft: step({ nodes, edges: relabelEdges({ nodes, edges: canvas.edges }) }, { key: `edit:${action.id}:${action.field}`, at: action.at }) };
    }
    case 'changeTrigger': {
      const nodes = canvas.nodes.map((n) => (n.type === 'trigger' ? { ...n, data: { ...n.data, data: triggerData(action.triggerType, n.data.data.label) } } : n));
      return { ...state, draft: step({ nodes, edges: canvas.edges }) };
    }
  }
}

const triggerData = (triggerType: TriggerType, label: unknown) => ({ triggerType, ...(label !== undefined ? { label } : {}) });

export const SELECT_FIRST = 'Select the node the new one follows, then pick it in the palette.';

/**
 * The node a palette click adds after: the one selected; with none (or several) selected, the
 * trigger while nothing follows it yet; else none (the agent is asked to select one).
 */
export function anchorOf(canvas: Canvas, selected: ReadonlySet<string>): CanvasNode | undefined {
  if (selected.size === 1) return canvas.nodes.find((n) => selected.has(n.id));
  const trigger = canvas.nodes.find((n) => n.type === 'trigger');
  return trigger && !canvas.edges.some((e) => e.source === trigger.id) ? trigger : undefined;
}

/**
 * A node from the palette: below `anchor` (beside its other children) and following it, from
 * its true branch when it branches.
 */
export function addNode(canvas: Canvas, item: NewNode, anchor: CanvasNode, triggerType: TriggerType): { canvas: Canvas; id: string } {
  const data =
    item.kind === 'action' ? newActionData(item.actionType) : item.kind === 'group' ? { match: 'all', conditions: [newConditionData('equals', triggerType)] } : newConditionData(item.operator, triggerType);
  const id = freshNodeId(
    canvas.nodes.map((n) => n.id),
    item.kind === 'action' ? item.actionType : 'condition',
  );
  const siblings = canvas.edges.filter((e) => e.source === anchor.id).length;
  const node: CanvasNode = {
    id,
    type: item.kind === 'action' ? 'action' : 'condition',
    position: { x: anchor.position.x + (siblings % 2 === 0 ? 1 : -1) * Math.ceil(siblings / 2) * 270, y: anchor.position.y + NODE_HEIGHT + 80 },
    data: { data, extra: {} },
  };
  const next: Canvas = { nodes: [...canvas.nodes, node], edges: canvas.edges };
  return { canvas: { ...next, edges: connect(next, anchor.id, id, 'true') }, id };
}

/** "Tidy up": every node where the layered layout puts it, at the size the canvas measured. */
function tidied(canvas: Canvas, measured: ReadonlyMap<string, Size>): Canvas {
  const positions = tidyLayout(
    canvas.nodes.map((n) => ({ id: n.id, ...measured.get(n.id) })),
    canvas.edges,
  );
  return { nodes: canvas.nodes.map((n) => ({ ...n, position: positions.get(n.id) ?? n.position })), edges: canvas.edges };
}

/** Nodes dragged (one undo step a drag), selected or measured on the canvas. */
function nodesChanged(state: EditorState, draft: Draft, changes: CanvasChange[], at: number): EditorState {
  let nodes = draft.history.present.nodes;
  let moved = false;
  let dragEnded = false;
  let sizes: Map<string, Size> | null = null;
  for (const c of changes) {
    if (c.type === 'position' && c.position) {
      const { id, position } = c;
      nodes = nodes.map((n) => (n.id === id ? { ...n, position } : n));
      moved = true;
    }
    if (c.type === 'position' && c.dragging === false) dragEnded = true;
    if (c.type === 'dimensions' && c.dimensions) (sizes ??= new Map(state.measured)).set(c.id, c.dimensions);
  }
  let next = state;
  if (moved) {
    const drag = state.drag.active ? state.drag : { session: state.drag.session + 1, active: true };
    const history = H.record(draft.history, { nodes, edges: draft.history.present.edges }, { coalesce: `move:${drag.session}`, at });
    next = { ...next, draft: { ...draft, history }, drag };
  }
  if (dragEnded) next = { ...next, drag: { ...next.drag, active: false } };
  const selection = selectionAfter(state.selectedNodes, changes);
  if (selection) next = { ...next, selectedNodes: selection, hint: selection.size === 1 ? null : next.hint };
  if (sizes) next = { ...next, measured: sizes };
  return next;
}

/** The selection after the canvas's select changes; null when there were none. */
function selectionAfter(selected: ReadonlySet<string>, changes: CanvasChange[]): Set<string> | null {
  let selection: Set<string> | null = null;
  for (const c of changes) {
    if (c.type !== 'select') continue;
    selection ??= new Set(selected);
    if (c.selected) selection.add(c.id);
    else selection.delete(c.id);
  }
  return selection;
}

// ---------------------------------------------------------------------------------------
// What the page shows, read from the state

export const graphOf = (draft: Draft): WorkflowGraph => canvasToGraph(draft.history.present);

/** The trigger drawn on the canvas (the workflow's own until it has one). */
export function triggerTypeOf(draft: Draft): TriggerType {
  return (draft.history.present.nodes.find((n) => n.type === 'trigger')?.data.data.triggerType ?? draft.workflow.triggerType ?? 'manual') as TriggerType;
}

/** Whether the graph, the name or the description differ from what was saved last. */
export function isDirty(draft: Draft, graph = graphOf(draft)): boolean {
  return !sameGraph(graph, draft.baseline.graph) || draft.name !== draft.baseline.name || draft.description !== draft.baseline.description;
}

/** What a save sends: only what changed since the last one; null when nothing did. */
export function savePatch(draft: Draft, graph = graphOf(draft)): WorkflowPatch | null {
  const { name, description, baseline, workflow } = draft;
  const triggerType = triggerTypeOf(draft);
  const patch: WorkflowPatch = {};
  if (name !== baseline.name) patch.name = name;
  if (description !== baseline.description) patch.description = description === '' ? null : description;
  if (!sameGraph(graph, baseline.graph) || triggerType !== workflow.triggerType) {
    patch.workflowJson = graph;
    patch.triggerType = triggerType;
  }
  return Object.keys(patch).length === 0 ? null : patch;
}

/** The graph's problems as the server's validator, run in the page, finds them. */
export function pageIssues(canvas: Canvas, graph: WorkflowGraph, triggerType: TriggerType): CanvasIssues {
  const result = validateGraph(graph, triggerType);
  return placeIssues(result.ok ? [] : result.issues, canvas);
}

/**
 * The problems drawn on the canvas: the server's answer to the last save while the canvas is as
 * it was saved; else those found in the page (`live`, when already computed).
 */
export function shownIssues(state: EditorState, live?: CanvasIssues): { issues: CanvasIssues; source: 'server' | 'page' } | null {
  if (!state.draft) return null;
  const canvas = state.draft.history.present;
  if (state.serverIssues && state.serverIssues.canvas === canvas) return { issues: state.serverIssues.issues, source: 'server' };
  return { issues: live ?? pageIssues(canvas, graphOf(state.draft), triggerTypeOf(state.draft)), source: 'page' };
}

/** The node the form on the right edits: the one selected, when exactly one is. */
export function selectedNode(state: EditorState): CanvasNode | undefined {
  if (!state.draft || state.selectedNodes.size !== 1) return undefined;
  return state.draft.history.present.nodes.find((n) => state.selectedNodes.has(n.id));
}
