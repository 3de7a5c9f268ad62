// The workflow editor's state (console/src/model/editor.ts): what the user does on the page and
// what the API answers, and what the user sees change.
import { describe, expect, it } from 'vitest';
import { ApiError, type Workflow } from '../../../console/src/api-types.ts';
import {
  editorReducer,
  graphOf,
  initialEditorState,
  isDirty,
  savePatch,
  SELECT_FIRST,
  selectedNode,
  shownIssues,
  type Draft,
  type EditorAction,
  type EditorState,
} from '../../../console/src/model/editor.ts';
import { runOverlay } from '../../../console/src/model/overlay.ts';
import { urgent } from './fixtures.ts';

const created = '2026-11-01T00:00:00.000Z';
/** "Escalate urgent tickets" as the API answers it: version 1, inactive. */
const workflow = (over: Partial<Workflow> = {}): Workflow => ({
  ...{ id: 'wf_1', name: 'Escalate urgent tickets', description: null, triggerType: 'ticket_created', isActive: false, version: 1 },
  ...{ createdAt: created, updatedAt: created, workflowJson: urgent() },
  ...over,
});

const run = (state: EditorState, ...actions: EditorAction[]) => actions.reduce(editorReducer, state);
const opened = (over: Partial<Workflow> = {}) => run(initialEditorState(), { type: 'loaded', workflow: workflow(over), etag: '"v1"' });
const draft = (state: EditorState): Draft => state.draft!;
const canvas = (state: EditorState) => draft(state).history.present;
const nodeIds = (state: EditorState) => canvas(state).nodes.map((n) => n.id);
const edgesOf = (state: EditorState) => canvas(state).edges.map((e) => `${e.source}>${e.target}${e.label ? `:${e.label}` : ''}`);
const dirty = (state: EditorState) => isDirty(draft(state));
const select = (...ids: string[]): EditorAction => ({ type: 'nodesChanged', changes: ids.map((id) => ({ type: 'select', id, selected: true })), at: 0 });
const selectEdge = (id: string): EditorAction => ({ type: 'edgesChanged', changes: [{ type: 'select', id, selected: true }] });
const moveTo = (id: string, x: number, y: number, at: number, dragging = true): EditorAction => ({ type: 'nodesChanged', changes: [{ type: 'position', id, position: { x, y }, dragging }], at });
const position = (state: EditorState, id: string) => canvas(state).nodes.find((n) => n.id === id)!.position;
const refused = (details: Array<{ path: string; message: string }>) => new ApiError(400, 'validation_failed', 'The workflow is not valid.', details, null);

describe('opening a workflow', () => {
  it('shows a loading page until read, then the graph laid out, nothing to save and nothing to undo', () => {
    expect(initialEditorState().draft).toBeNull();
    const state = opened();
    expect(draft(state)).toMatchObject({ name: 'Escalate urgent tickets', description: '', etag: '"v1"' });
    expect(nodeIds(state)).toEqual(['created', 'is-urgent', 'raise', 'tag', 'reply']);
    // Saved without positions: laid out top to bottom from the trigger.
    expect(position(state, 'created').y).toBeLessThan(position(state, 'is-urgent').y);
    expect(position(state, 'is-urgent').y).toBeLessThan(position(state, 'reply').y);
    expect(dirty(state)).toBe(false);
    expect(savePatch(draft(state))).toBeNull();
    expect(draft(state).history.past).toEqual([]);
  });

  it('shows why it could not be read', () => {
    const error = new ApiError(404, 'not_found', 'Workflow not found.', [], null);
    const state = run(initialEditorState(), { type: 'loadFailed', error });
    expect(state.draft).toBeNull();
    expect(state.error).toBe(error);
  });
});

describe('drawing', () => {
  it('adds a node from the palette below the selected one, following it from its true branch, and selects it', () => {
    const state = run(opened(), select('is-urgent'), { type: 'add', node: { kind: 'action', actionType: 'add_tag' } });
    expect(nodeIds(state)).toContain('add-tag');
    expect(edgesOf(state)).toContain('is-urgent>add-tag:true');
    expect([...state.selectedNodes]).toEqual(['add-tag']);
    expect(selectedNode(state)?.data.data).toMatchObject({ actionType: 'add_tag' });
    expect(position(state, 'add-tag').y).toBeGreaterThan(position(state, 'is-urgent').y);
    expect(dirty(state)).toBe(true);
  });

  it('adds a node with nothing selected after the trigger while nothing follows it; the next follows the new one', () => {
    const empty = opened({ workflowJson: { nodes: [{ id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } }], edges: [] } });
    const first = run(empty, { type: 'add', node: { kind: 'condition', operator: 'contains' } });
    expect(nodeIds(first)).toEqual(['start', 'condition']);
    expect(edgesOf(first)).toEqual(['start>condition']);
    expect(position(first, 'condition').y).toBeGreaterThan(position(first, 'start').y);
    const second = run(first, { type: 'add', node: { kind: 'group' } });
    expect(nodeIds(second)).toEqual(['start', 'condition', 'condition-2']);
    expect(edgesOf(second)).toContain('condition>condition-2:true');
    expect(canvas(second).nodes[2].data.data).toMatchObject({ match: 'all' });
    expect(second.hint).toBeNull();
  });

  it('asks to select a node first when nothing is selected and the trigger has a path already', () => {
    const state = run(opened(), { type: 'add', node: { kind: 'action', actionType: 'add_tag' } });
    expect(nodeIds(state)).toEqual(nodeIds(opened()));
    expect(dirty(state)).toBe(false);
    expect(state.hint).toBe(SELECT_FIRST);
    // Selecting a node is doing as asked: the hint goes, and the palette adds after it.
    const selected = run(state, select('raise'));
    expect(selected.hint).toBeNull();
    expect(edgesOf(run(selected, { type: 'add', node: { kind: 'action', actionType: 'add_tag' } }))).toContain('raise>add-tag');
  });

  it('deletes the selected node with its edges, and undo restores both; redo deletes them again', () => {
    const deleted = run(opened(), select('tag'), { type: 'removeSelected' });
    expect(nodeIds(deleted)).not.toContain('tag');
    expect(edgesOf(deleted)).toEqual(['created>is-urgent', 'is-urgent>raise:true', 'raise>reply']);
    expect(deleted.selectedNodes.size).toBe(0);
    expect(dirty(deleted)).toBe(true);

    const undone = run(deleted, { type: 'undo' });
    expect(nodeIds(undone)).toContain('tag');
    expect(edgesOf(undone)).toEqual(edgesOf(opened()));
    expect(dirty(undone)).toBe(false);
    expect(draft(undone).history.future).toHaveLength(1);

    const redone = run(undone, { type: 'redo' });
    expect(edgesOf(redone)).toEqual(edgesOf(deleted));
  });

  it('never deletes the trigger, and deletes a selected edge alone', () => {
    const state = opened();
    expect(run(state, select('created'), { type: 'removeSelected' }).draft).toBe(state.draft);
    const edgeId = canvas(state).edges.find((e) => e.source === 'tag')!.id;
    const cut = run(state, selectEdge(edgeId), { type: 'removeSelected' });
    expect(nodeIds(cut)).toEqual(nodeIds(state));
    expect(edgesOf(cut)).not.toContain('tag>reply');
    expect(cut.selectedEdges.size).toBe(0);
  });

  it('connects two nodes once, from the branch drawn', () => {
    const connect: EditorAction = { type: 'connect', connection: { source: 'is-urgent', target: 'reply', sourceHandle: 'false' } };
    const state = run(opened(), connect);
    expect(edgesOf(state)).toContain('is-urgent>reply:false');
    expect(edgesOf(run(state, connect))).toEqual(edgesOf(state));
  });

  it('makes one drag one step to undo, however many moves it takes', () => {
    const start = position(opened(), 'reply');
    const state = run(opened(), moveTo('reply', 10, 10, 0), moveTo('reply', 20, 20, 16), moveTo('reply', 30, 30, 32, false));
    expect(position(state, 'reply')).toEqual({ x: 30, y: 30 });
    expect(position(run(state, { type: 'undo' }), 'reply')).toEqual(start);
    // The next drag is a step of its own.
    const twice = run(state, moveTo('reply', 50, 50, 100), moveTo('reply', 60, 60, 120, false));
    expect(position(run(twice, { type: 'undo' }), 'reply')).toEqual({ x: 30, y: 30 });
  });

  it('keeps selecting and measuring out of the undo steps', () => {
    const measured: EditorAction = { type: 'nodesChanged', changes: [{ type: 'dimensions', id: 'reply', dimensions: { width: 300, height: 120 } }], at: 0 };
    const state = run(opened(), select('raise', 'tag'), measured);
    expect([...state.selectedNodes]).toEqual(['raise', 'tag']);
    expect(selectedNode(state)).toBeUndefined();
    expect(state.measured.get('reply')).toEqual({ width: 300, height: 120 });
    expect(draft(state).history.past).toEqual([]);
    const one = run(state, { type: 'nodesChanged', changes: [{ type: 'select', id: 'tag', selected: false }], at: 0 });
    expect(selectedNode(one)?.id).toBe('raise');
  });

  it('tidies the graph up in one step', () => {
    const moved = run(opened(), moveTo('reply', 900, 900, 0, false));
    const tidied = run(moved, { type: 'tidy' });
    expect(position(tidied, 'reply')).toEqual(position(opened(), 'reply'));
    expect(position(run(tidied, { type: 'undo' }), 'reply')).toEqual({ x: 900, y: 900 });
  });

  it('copies and pastes the selection with fresh ids and its inner edges, selecting the copies', () => {
    const state = run(opened(), select('raise', 'reply'), { type: 'copy' }, { type: 'paste' });
    expect(nodeIds(state).slice(5)).toEqual(['raise-2', 'reply-2']);
    expect(edgesOf(state)).toContain('raise-2>reply-2');
    expect([...state.selectedNodes]).toEqual(['raise-2', 'reply-2']);
    expect(nodeIds(run(state, { type: 'undo' }))).toHaveLength(5);
  });

  it('pastes nothing before anything was copied, and the trigger alone is not copied', () => {
    const state = opened();
    expect(run(state, { type: 'paste' })).toBe(state);
    expect(run(state, select('created'), { type: 'copy' }).clip).toBeUndefined();
  });
});

describe('editing a node', () => {
  const typeTag = (tag: string, at: number): EditorAction => ({ type: 'editNode', id: 'tag', data: { actionType: 'add_tag', tag }, field: 'tag', at });

  it('makes typing in one field one step to undo; a pause or another field starts the next', () => {
    let state = run(opened(), select('tag'), typeTag('e', 0), typeTag('es', 200), typeTag('esc', 400));
    expect(selectedNode(state)?.data.data.tag).toBe('esc');
    expect(selectedNode(run(state, { type: 'undo' }))?.data.data.tag).toBe('escalated');
    state = run(state, typeTag('esca', 5000));
    expect(selectedNode(run(state, { type: 'undo' }))?.data.data.tag).toBe('esc');
  });

  it('labels the edges of an action that starts to branch (wait_for_reply) true', () => {
    const state = run(opened(), { type: 'editNode', id: 'tag', data: { actionType: 'wait_for_reply', timeoutSeconds: 60 }, field: 'actionType', at: 0 });
    expect(edgesOf(state)).toContain('tag>reply:true');
  });

  it('changes the trigger, keeping its label, and saves the new trigger type with the graph', () => {
    const labelled = opened({ workflowJson: { ...urgent(), nodes: urgent().nodes.map((n) => (n.type === 'trigger' ? { ...n, data: { ...n.data, label: 'New ticket' } } : n)) } });
    const state = run(labelled, { type: 'changeTrigger', triggerType: 'ticket_updated' });
    expect(canvas(state).nodes[0].data.data).toEqual({ triggerType: 'ticket_updated', label: 'New ticket' });
    expect(savePatch(draft(state))).toMatchObject({ triggerType: 'ticket_updated', workflowJson: graphOf(draft(state)) });
  });

  it('renames and describes; a description emptied is sent as none', () => {
    const state = run(opened({ description: 'Old' }), { type: 'rename', name: 'Urgent' }, { type: 'describe', description: '' });
    expect(dirty(state)).toBe(true);
    expect(savePatch(draft(state))).toEqual({ name: 'Urgent', description: null });
    expect(dirty(run(state, { type: 'rename', name: 'Escalate urgent tickets' }, { type: 'describe', description: 'Old' }))).toBe(false);
  });
});

describe('saving', () => {
  const edited = () => run(opened(), { type: 'rename', name: 'Urgent' }, select('tag'), { type: 'removeSelected' });

  it('sends only what changed, shows it saving, and once saved shows the version and nothing unsaved', () => {
    const before = { ...edited(), error: new Error('old'), notice: 'old' };
    expect(savePatch(draft(before))).toMatchObject({ name: 'Urgent', triggerType: 'ticket_created' });
    const saving = run(before, { type: 'saveStarted' });
    expect(saving).toMatchObject({ saving: true, error: null, notice: null });
    const d = draft(saving);
    const saved = run(saving, { type: 'saved', workflow: workflow({ name: 'Urgent', version: 2 }), etag: '"v2"', baseline: { graph: graphOf(d), name: d.name, description: d.description } });
    expect(saved).toMatchObject({ saving: false, notice: 'Saved: version 2.' });
    expect(draft(saved)).toMatchObject({ etag: '"v2"', workflow: { version: 2 } });
    expect(dirty(saved)).toBe(false);
    // Undo after a save is an edit to save again.
    expect(dirty(run(saved, { type: 'undo' }))).toBe(true);
  });

  it('keeps an edit made while the save was under way unsaved', () => {
    const saving = run(edited(), { type: 'saveStarted' });
    const d = draft(saving);
    const saved = run(saving, { type: 'rename', name: 'Urgent!' }, { type: 'saved', workflow: workflow({ name: 'Urgent', version: 2 }), etag: '"v2"', baseline: { graph: graphOf(d), name: d.name, description: d.description } });
    expect(draft(saved).name).toBe('Urgent!');
    expect(savePatch(draft(saved))).toEqual({ name: 'Urgent!' });
  });

  it('with nothing changed, sends nothing but clears the banners', () => {
    const state = run({ ...opened(), notice: 'Saved: version 1.' }, { type: 'saveStarted' });
    expect(state).toMatchObject({ saving: false, notice: null });
  });

  it('keeps the edits after a failed save, and shows why', () => {
    const before = edited();
    const error = new ApiError(0, 'network_error', 'Deskflow could not be reached.', [], null);
    const failed = run(before, { type: 'saveStarted' }, { type: 'saveFailed', error, canvas: canvas(before) });
    expect(failed).toMatchObject({ saving: false, error });
    expect(draft(failed)).toEqual(draft(before));
    expect(dirty(failed)).toBe(true);
    expect(run(failed, { type: 'dismiss', what: 'error' }).error).toBeNull();
  });

  it('puts the server\'s objections on the node and field they name until the graph changes, the rest in the banner', () => {
    const state = run(opened(), { type: 'editNode', id: 'tag', data: { actionType: 'add_tag', tag: '   ' }, field: 'tag', at: 0 });
    const error = refused([
      { path: 'workflowJson.nodes[3].data.tag', message: 'node "tag": tag must not be blank' },
      { path: 'name', message: 'name is too long' },
    ]);
    const failed = run(state, { type: 'saveStarted' }, { type: 'saveFailed', error, canvas: canvas(state) });
    expect(shownIssues(failed)).toMatchObject({ source: 'server' });
    expect(shownIssues(failed)!.issues.nodes.get('tag')).toEqual([{ field: 'tag', message: 'node "tag": tag must not be blank' }]);
    expect(failed.error).toBeInstanceOf(ApiError);
    expect((failed.error as ApiError).message).toBe('Not saved: The workflow is not valid.');
    expect((failed.error as ApiError).details).toEqual([{ path: 'name', message: 'name is too long' }]);
    // Edited again: the page's own check takes over (the blank tag is still found).
    const after = run(failed, { type: 'rename', name: 'x' }, moveTo('reply', 1, 1, 0, false));
    expect(shownIssues(after)).toMatchObject({ source: 'page' });
    expect(shownIssues(after)!.issues.nodes.get('tag')?.[0].field).toBe('tag');
  });

  it('finds a graph\'s problems in the page before any save', () => {
    const state = run(opened(), { type: 'editNode', id: 'tag', data: { actionType: 'add_tag', tag: '' }, field: 'tag', at: 0 });
    expect(shownIssues(state)).toMatchObject({ source: 'page' });
    expect(shownIssues(state)!.issues.nodes.get('tag')).toHaveLength(1);
    expect(shownIssues(opened())!.issues.nodes.size).toBe(0);
  });
});

describe('a colleague saved first', () => {
  it('shows the conflict with their version, keeping mine; "Keep editing" closes it', () => {
    const mine = run(opened(), { type: 'rename', name: 'Mine' }, { type: 'saveStarted' });
    const conflicted = run(mine, { type: 'conflicted', conflict: { etag: '"v2"', version: 2, retry: { kind: 'save' } } });
    expect(conflicted).toMatchObject({ saving: false, conflict: { version: 2, retry: { kind: 'save' } } });
    expect(draft(conflicted).name).toBe('Mine');
    expect(run(conflicted, { type: 'dismiss', what: 'conflict' }).conflict).toBeNull();
  });

  it('"Reload theirs" drops mine: their workflow, nothing unsaved, nothing to undo', () => {
    const mine = run(opened(), { type: 'rename', name: 'Mine' }, select('tag'), { type: 'removeSelected' });
    const theirs = run(mine, { type: 'dismiss', what: 'conflict' }, { type: 'loaded', workflow: workflow({ name: 'Theirs', version: 2 }), etag: '"v2"' });
    expect(draft(theirs)).toMatchObject({ name: 'Theirs', etag: '"v2"', workflow: { version: 2 } });
    expect(nodeIds(theirs)).toContain('tag');
    expect(dirty(theirs)).toBe(false);
    expect(draft(theirs).history.past).toEqual([]);
  });

  it('"Overwrite with mine" that succeeds closes the conflict', () => {
    const conflicted = run(opened(), { type: 'rename', name: 'Mine' }, { type: 'conflicted', conflict: { etag: '"v2"', version: 2, retry: { kind: 'save' } } });
    const d = draft(conflicted);
    const saved = run(conflicted, { type: 'saveStarted' }, { type: 'saved', workflow: workflow({ name: 'Mine', version: 3 }), etag: '"v3"', baseline: { graph: graphOf(d), name: d.name, description: d.description } });
    expect(saved).toMatchObject({ conflict: null, notice: 'Saved: version 3.' });
  });
});

describe('switching it on and off', () => {
  it('shows it active once the server says so, and why not when it refuses', () => {
    const state = run({ ...opened(), error: new Error('old') }, { type: 'activationStarted' });
    expect(state.error).toBeNull();
    const active = run(state, { type: 'activated', workflow: workflow({ isActive: true }), etag: '"v1b"' });
    expect(draft(active).workflow.isActive).toBe(true);
    expect(active.notice).toBe('Active: it now runs on its trigger (the saved version).');
    const inactive = run(active, { type: 'activated', workflow: workflow({ isActive: false }), etag: '"v1c"' });
    expect(inactive.notice).toBe('Inactive: it no longer runs on its trigger.');
    const error = new ApiError(500, 'internal', 'Something broke.', [], null);
    expect(run(state, { type: 'activationFailed', error }).error).toBe(error);
  });

  it('a refused activation over a colleague\'s save is a conflict that leaves a save under way alone', () => {
    const saving = run(opened(), { type: 'rename', name: 'Mine' }, { type: 'saveStarted' });
    const conflicted = run(saving, { type: 'conflicted', conflict: { etag: '"v2"', version: 2, retry: { kind: 'activate', isActive: true } } });
    expect(conflicted).toMatchObject({ saving: true, conflict: { retry: { kind: 'activate', isActive: true } } });
  });
});

describe('trying it', () => {
  it('paints a dry run on the canvas while "Try it" is open, and clears it on going back to drawing', () => {
    const state = opened();
    const overlay = runOverlay(canvas(state), [{ nodeId: 'created', status: 'passed' }], true);
    const trying = run(state, { type: 'showTab', tab: 'try' }, { type: 'overlay', overlay });
    expect(trying).toMatchObject({ tab: 'try', overlay });
    expect(run(trying, { type: 'showTab', tab: 'edit' })).toMatchObject({ tab: 'edit', overlay: null });
  });

  it('does nothing to a workflow not read yet', () => {
    const state = initialEditorState();
    expect(run(state, { type: 'undo' }, { type: 'removeSelected' }, { type: 'add', node: { kind: 'group' } })).toBe(state);
    expect(run(state, { type: 'saveStarted' }).saving).toBe(false);
  });
});
