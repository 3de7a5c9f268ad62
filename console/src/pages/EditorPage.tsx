import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ReactFlowProvider, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import { validateGraph, type TriggerType, type WorkflowGraph } from '../../../src/graph/index.ts';
import { api, ApiError, type Workflow } from '../api.ts';
import { canvasToGraph, connect, copy, freshNodeId, graphToCanvas, paste, relabelEdges, removeNodes, sameGraph, type Canvas, type CanvasNode, type Clip } from '../model/canvas.ts';
import { newActionData, newConditionData } from '../model/fields.ts';
import * as H from '../model/history.ts';
import { placeIssues, type CanvasIssues } from '../model/issues.ts';
import { NODE_HEIGHT, tidyLayout } from '../model/layout.ts';
import type { RunOverlay } from '../model/overlay.ts';
import { guardLeaving, href } from '../router.ts';
import { Dialog, ErrorBanner, Loading } from '../ui/common.tsx';
import { FlowCanvas } from '../ui/FlowCanvas.tsx';
import { NodeForm } from '../ui/NodeForm.tsx';
import { Palette, type PaletteItem } from '../ui/Palette.tsx';
import { TryPanel } from '../ui/TryPanel.tsx';
import type { WorkflowFlowNode } from '../ui/WorkflowNode.tsx';

type Baseline = { graph: WorkflowGraph; name: string; description: string };
type Conflict = { etag: string | null; version: number | null; retry: (etag: string | null) => Promise<void> };

/** A canvas for a graph as the API gave it: nodes saved without a position are laid out. */
export function canvasOf(graph: WorkflowGraph): Canvas {
  const unplaced = graph.nodes.some((n) => !n.position);
  const positions = unplaced ? tidyLayout(graph.nodes, graph.edges) : new Map();
  return graphToCanvas(graph, (id) => positions.get(id) ?? { x: 0, y: 0 });
}

export function EditorPage({ workflowId }: { workflowId: string }) {
  const [workflow, setWorkflow] = useState<Workflow | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [baseline, setBaseline] = useState<Baseline | null>(null);
  const [hist, setHist] = useState<H.History<Canvas> | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [selectedNodes, setSelectedNodes] = useState<ReadonlySet<string>>(new Set());
  const [selectedEdges, setSelectedEdges] = useState<ReadonlySet<string>>(new Set());
  const [measured, setMeasured] = useState<ReadonlyMap<string, { width: number; height: number }>>(new Map());
  const [serverIssues, setServerIssues] = useState<{ canvas: Canvas; issues: CanvasIssues } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [overlay, setOverlay] = useState<RunOverlay | null>(null);
  const [tab, setTab] = useState<'edit' | 'try'>('edit');
  const [saving, setSaving] = useState(false);
  const clip = useRef<Clip | undefined>(undefined);
  const drag = useRef<{ session: number; active: boolean }>({ session: 0, active: false });

  const load = useCallback(async () => {
    try {
      const { workflow, etag } = await api.getWorkflow(workflowId);
      const canvas = canvasOf(workflow.workflowJson);
      setWorkflow(workflow);
      setEtag(etag);
      setBaseline({ graph: canvasToGraph(canvas), name: workflow.name, description: workflow.description ?? '' });
      setHist(H.start(canvas));
      setName(workflow.name);
      setDescription(workflow.description ?? '');
      setServerIssues(null);
      setSelectedNodes(new Set());
      setSelectedEdges(new Set());
      setOverlay(null);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [workflowId]);
  useEffect(() => {
    void load();
  }, [load]);

  const present = hist?.present;
  const graph = useMemo(() => (present ? canvasToGraph(present) : null), [present]);
  const triggerType = (present?.nodes.find((n) => n.type === 'trigger')?.data.data.triggerType ?? workflow?.triggerType ?? 'manual') as TriggerType;
  const dirty = !!(baseline && graph && (!sameGraph(graph, baseline.graph) || name !== baseline.name || description !== baseline.description));

  // The server's answer to the last save while the canvas is as it was saved; else the same validator, run here.
  const liveIssues = useMemo(() => {
    if (!present || !graph) return null;
    const result = validateGraph(graph, triggerType);
    return placeIssues(result.ok ? [] : result.issues, present);
  }, [present, graph, triggerType]);
  const shownIssues = serverIssues && serverIssues.canvas === present ? serverIssues.issues : liveIssues;
  const issueSource = serverIssues && serverIssues.canvas === present ? 'server' : 'page';

  // Leaving with unsaved changes asks first: another page of the console, or closing the tab.
  useEffect(() => {
    if (!dirty) return;
    guardLeaving(() => window.confirm('This workflow has unsaved changes. Leave without saving them?'));
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      guardLeaving(null);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty]);

  const change = useCallback((next: Canvas, coalesce?: string) => {
    setHist((h) => (h ? H.record(h, next, { coalesce, at: Date.now() }) : h));
  }, []);

  const save = useCallback(
    async (ifMatch: string | null = etag) => {
      if (!present || !graph || !baseline || !workflow) return;
      setSaving(true);
      setError(null);
      setNotice(null);
      const patch: Parameters<typeof api.updateWorkflow>[1] = {};
      if (name !== baseline.name) patch.name = name;
      if (description !== baseline.description) patch.description = description === '' ? null : description;
      if (!sameGraph(graph, baseline.graph) || triggerType !== workflow.triggerType) {
        patch.workflowJson = graph;
        patch.triggerType = triggerType;
      }
      if (Object.keys(patch).length === 0) {
        setSaving(false);
        return;
      }
      try {
        const saved = await api.updateWorkflow(workflow.id, patch, ifMatch);
        setWorkflow(saved.workflow);
        setEtag(saved.etag);
        setBaseline({ graph, name, description });
        setServerIssues(null);
        setConflict(null);
        setNotice(`Saved: version ${saved.workflow.version}.`);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'precondition_failed') {
          setConflict({ etag: err.etag, version: await currentVersion(workflow.id), retry: (tag) => save(tag) });
        } else if (err instanceof ApiError && err.code === 'validation_failed') {
          const placed = placeIssues(err.details, present);
          setServerIssues({ canvas: present, issues: placed });
          setError(new ApiError(err.status, err.code, `Not saved: ${err.message}`, placed.general, null));
        } else {
          setError(err);
        }
      } finally {
        setSaving(false);
      }
    },
    [present, graph, baseline, workflow, name, description, triggerType, etag],
  );

  const setActive = async (isActive: boolean, ifMatch: string | null = etag) => {
    if (!workflow) return;
    setError(null);
    try {
      const saved = await api.updateWorkflow(workflow.id, { isActive }, ifMatch);
      setWorkflow(saved.workflow);
      setEtag(saved.etag);
      setConflict(null);
      setNotice(isActive ? 'Active: it now runs on its trigger (the saved version).' : 'Inactive: it no longer runs on its trigger.');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'precondition_failed') {
        setConflict({ etag: err.etag, version: await currentVersion(workflow.id), retry: (tag) => setActive(isActive, tag) });
      } else setError(err);
    }
  };

  const add = (item: PaletteItem) => {
    if (!present) return;
    const anchor = present.nodes.find((n) => selectedNodes.has(n.id) && selectedNodes.size === 1);
    const lowest = present.nodes.reduce((max, n) => Math.max(max, n.position.y), 0);
    const kind = item.kind === 'action' ? 'action' : 'condition';
    const data =
      item.kind === 'action' ? newActionData(item.actionType) : item.kind === 'group' ? { match: 'all', conditions: [newConditionData('equals', triggerType)] } : newConditionData(item.operator, triggerType);
    const id = freshNodeId(
      present.nodes.map((n) => n.id),
      item.kind === 'action' ? item.actionType : 'condition',
    );
    const siblings = anchor ? present.edges.filter((e) => e.source === anchor.id).length : 0;
    const node: CanvasNode = {
      id,
      type: kind,
      // Below the selected node, beside its other children; else below everything.
      position: anchor
        ? { x: anchor.position.x + (siblings % 2 === 0 ? 1 : -1) * Math.ceil(siblings / 2) * 270, y: anchor.position.y + NODE_HEIGHT + 80 }
        : { x: present.nodes[0]?.position.x ?? 0, y: lowest + NODE_HEIGHT + 80 },
      data: { data, extra: {} },
    };
    let next: Canvas = { nodes: [...present.nodes, node], edges: present.edges };
    // Added below the selected node, it follows it (from its true branch when it branches).
    if (anchor) next = { ...next, edges: connect(next, anchor.id, id, 'true') };
    change(next);
    setSelectedNodes(new Set([id]));
    setSelectedEdges(new Set());
  };

  const removeSelected = useCallback(() => {
    if (!present) return;
    const nodes = [...selectedNodes].filter((id) => present.nodes.find((n) => n.id === id)?.type !== 'trigger');
    if (nodes.length === 0 && selectedEdges.size === 0) return;
    const without = removeNodes(present, nodes);
    change({ nodes: without.nodes, edges: without.edges.filter((e) => !selectedEdges.has(e.id)) });
    setSelectedNodes(new Set());
    setSelectedEdges(new Set());
  }, [present, selectedNodes, selectedEdges, change]);

  const tidy = () => {
    if (!present) return;
    const positions = tidyLayout(
      present.nodes.map((n) => ({ id: n.id, ...measured.get(n.id) })),
      present.edges,
    );
    change({ nodes: present.nodes.map((n) => ({ ...n, position: positions.get(n.id) ?? n.position })), edges: present.edges });
  };

  // Keyboard: delete, undo/redo, copy/paste; Ctrl+S saves. Keys typed into a field stay the field's.
  const keys = useRef({ removeSelected, save, present, selectedNodes });
  keys.current = { removeSelected, save, present, selectedNodes };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void keys.current.save();
        return;
      }
      const target = e.target as HTMLElement | null;
      if (target && (target.closest('input, textarea, select, [contenteditable="true"]') || target.closest('dialog'))) return;
      const { present, selectedNodes } = keys.current;
      if (e.key === 'Delete' || e.key === 'Backspace') {
        e.preventDefault();
        keys.current.removeSelected();
      } else if (mod && e.key.toLowerCase() === 'z' && !e.shiftKey) {
        e.preventDefault();
        setHist((h) => (h ? H.undo(h) : h));
      } else if (mod && (e.key.toLowerCase() === 'y' || (e.key.toLowerCase() === 'z' && e.shiftKey))) {
        e.preventDefault();
        setHist((h) => (h ? H.redo(h) : h));
      } else if (mod && e.key.toLowerCase() === 'c' && present) {
        const copied = copy(present, selectedNodes);
        if (copied) clip.current = copied;
      } else if (mod && e.key.toLowerCase() === 'v' && present && clip.current) {
        e.preventDefault();
        const { canvas, pasted } = paste(present, clip.current);
        setHist((h) => (h ? H.record(h, canvas) : h));
        setSelectedNodes(new Set(pasted));
        setSelectedEdges(new Set());
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const onNodesChange = useCallback(
    (changes: NodeChange<WorkflowFlowNode>[]) => {
      if (!present) return;
      let nodes = present.nodes;
      let moved = false;
      let dragEnded = false;
      let selection: Set<string> | null = null;
      let sizes: Map<string, { width: number; height: number }> | null = null;
      for (const c of changes) {
        if (c.type === 'position' && c.position) {
          const { id, position } = c;
          nodes = nodes.map((n) => (n.id === id ? { ...n, position } : n));
          moved = true;
          if (c.dragging === false) dragEnded = true;
        } else if (c.type === 'position' && c.dragging === false) {
          dragEnded = true;
        } else if (c.type === 'select') {
          selection ??= new Set(selectedNodes);
          if (c.selected) selection.add(c.id);
          else selection.delete(c.id);
        } else if (c.type === 'dimensions' && c.dimensions) {
          sizes ??= new Map(measured);
          sizes.set(c.id, c.dimensions);
        }
      }
      if (moved) {
        if (!drag.current.active) {
          drag.current = { session: drag.current.session + 1, active: true };
        }
        change({ nodes, edges: present.edges }, `move:${drag.current.session}`);
      }
      if (dragEnded) drag.current.active = false;
      if (selection) setSelectedNodes(selection);
      if (sizes) setMeasured(sizes);
    },
    [present, selectedNodes, measured, change],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      let selection: Set<string> | null = null;
      for (const c of changes) {
        if (c.type === 'select') {
          selection ??= new Set(selectedEdges);
          if (c.selected) selection.add(c.id);
          else selection.delete(c.id);
        }
      }
      if (selection) setSelectedEdges(selection);
    },
    [selectedEdges],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      if (!present) return;
      change({ nodes: present.nodes, edges: connect(present, c.source, c.target, c.sourceHandle) });
    },
    [present, change],
  );

  if (!hist || !present || !workflow || !baseline) return error ? <ErrorBanner error={error} /> : <Loading />;

  const selected = selectedNodes.size === 1 ? present.nodes.find((n) => selectedNodes.has(n.id)) : undefined;
  const updateNode = (id: string, data: Record<string, unknown>, field: string) => {
    const nodes = present.nodes.map((n) => (n.id === id ? { ...n, data: { ...n.data, data } } : n));
    const next = { nodes, edges: present.edges };
    change({ nodes, edges: relabelEdges(next) }, `edit:${id}:${field}`);
  };
  const changeTrigger = (type: TriggerType) => {
    const nodes = present.nodes.map((n) =>
      n.type === 'trigger' ? { ...n, data: { ...n.data, data: { triggerType: type, ...(n.data.data.label !== undefined ? { label: n.data.data.label } : {}) } } } : n,
    );
    change({ nodes, edges: present.edges });
  };

  return (
    <section className="editor">
      <div className="editor-head">
        <div className="titles">
          <input className="title-input" name="workflowName" aria-label="Workflow name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          <input className="description-input" name="workflowDescription" aria-label="Description" placeholder="What it is for (optional)" value={description} maxLength={2000} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <div className="toolbar">
          <span className="muted" data-testid="version">version {workflow.version}</span>
          {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
          <button type="button" onClick={() => setHist((h) => (h ? H.undo(h) : h))} disabled={hist.past.length === 0} title="Undo (Ctrl+Z)">Undo</button>
          <button type="button" onClick={() => setHist((h) => (h ? H.redo(h) : h))} disabled={hist.future.length === 0} title="Redo (Ctrl+Shift+Z)">Redo</button>
          <button type="button" onClick={tidy}>Tidy up</button>
          <button type="button" className="primary" data-action="save" onClick={() => void save()} disabled={saving || !dirty} title="Save (Ctrl+S)">
            {saving ? 'Saving…' : 'Save'}
          </button>
          <label className="switch">
            <input type="checkbox" name="isActive" checked={workflow.isActive} onChange={(e) => void setActive(e.target.checked)} />
            {workflow.isActive ? 'active' : 'inactive'}
          </label>
          <a href={href.runs(workflow.id)}>Runs</a>
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {notice && (
        <div className="banner ok" role="status">
          {notice}
          <button type="button" className="link" onClick={() => setNotice(null)} aria-label="Dismiss">×</button>
        </div>
      )}
      {shownIssues && shownIssues.general.length > 0 && issueSource === 'page' && (
        <div className="banner warn" data-testid="graph-issues">
          {shownIssues.general.map((i, k) => (
            <div key={k}>{i.message}</div>
          ))}
        </div>
      )}
      <div className="editor-body">
        <aside className="left">
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={tab === 'edit'} onClick={() => { setTab('edit'); setOverlay(null); }}>Draw</button>
            <button type="button" role="tab" aria-selected={tab === 'try'} data-tab="try" onClick={() => setTab('try')}>Try it</button>
          </div>
          {tab === 'edit' ? (
            <>
              <p className="muted small">Select a node, then pick what follows it. Drag from a handle to connect; Delete removes, Ctrl+Z undoes, Ctrl+C / Ctrl+V copy.</p>
              <Palette onAdd={add} />
            </>
          ) : (
            <TryPanel workflow={workflow} graph={graph!} triggerType={triggerType} dirty={dirty} canvas={present} onOverlay={setOverlay} />
          )}
        </aside>
        <div className="canvas" data-testid="canvas">
          <ReactFlowProvider>
            <FlowCanvas
              canvas={present}
              selectedNodes={selectedNodes}
              selectedEdges={selectedEdges}
              measured={measured}
              overlay={overlay}
              issues={shownIssues}
              issueSource={issueSource}
              editable
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
            />
          </ReactFlowProvider>
        </div>
        <aside className="right">
          {selected ? (
            <NodeForm
              key={selected.id}
              nodeId={selected.id}
              kind={selected.type}
              data={selected.data.data}
              triggerType={triggerType}
              issues={shownIssues?.nodes.get(selected.id)}
              onChange={(data, field) => updateNode(selected.id, data, field)}
              onTriggerTypeChange={changeTrigger}
            />
          ) : (
            <p className="muted">Select a node to edit it.</p>
          )}
        </aside>
      </div>
      {conflict && (
        <Dialog title="Someone else saved this workflow" onClose={() => setConflict(null)}>
          <p data-testid="conflict">
            While you were editing, it was saved by someone else{conflict.version !== null ? ` (it is now at version ${conflict.version})` : ''}. Your changes are not saved yet.
          </p>
          <div className="buttons">
            <button type="button" onClick={() => setConflict(null)}>Keep editing</button>
            <button
              type="button"
              data-action="reload"
              onClick={() => {
                setConflict(null);
                void load();
              }}
            >
              Reload theirs (drop mine)
            </button>
            <button type="button" className="danger" data-action="overwrite" onClick={() => void conflict.retry(conflict.etag)}>
              Overwrite with mine
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

async function currentVersion(workflowId: string): Promise<number | null> {
  try {
    return (await api.getWorkflow(workflowId)).workflow.version;
  } catch {
    return null;
  }
}
