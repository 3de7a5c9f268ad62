import { useEffect, useMemo, useRef } from 'react';
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
  type NodeTypes,
  type Viewport,
  useReactFlow,
} from '@xyflow/react';
import { branches, type Canvas } from '../model/canvas.ts';
import type { CanvasIssues } from '../model/issues.ts';
import type { RunOverlay } from '../model/overlay.ts';
import { WorkflowNode, type WorkflowFlowNode } from './WorkflowNode.tsx';

const nodeTypes: NodeTypes = { workflow: WorkflowNode };

export type FlowCanvasProps = {
  canvas: Canvas;
  selectedNodes?: ReadonlySet<string>;
  selectedEdges?: ReadonlySet<string>;
  measured?: ReadonlyMap<string, { width: number; height: number }>;
  overlay?: RunOverlay | null;
  issues?: CanvasIssues | null;
  issueSource?: 'server' | 'page';
  editable: boolean;
  onNodesChange?: (changes: NodeChange<WorkflowFlowNode>[]) => void;
  onEdgesChange?: (changes: EdgeChange[]) => void;
  onConnect?: (connection: Connection) => void;
  onMoveEnd?: (viewport: Viewport) => void;
};

/** The canvas (@xyflow/react): the graph's nodes and edges, with a run and the validation problems drawn over them. */
export function FlowCanvas(props: FlowCanvasProps) {
  const { canvas, overlay, issues, editable } = props;
  const nodes = useMemo(
    () =>
      canvas.nodes.map(
        (n): WorkflowFlowNode => ({
          id: n.id,
          type: 'workflow',
          position: n.position,
          selected: props.selectedNodes?.has(n.id) ?? false,
          ...(props.measured?.get(n.id) ? { measured: props.measured.get(n.id) } : {}),
          deletable: false,
          data: {
            kind: n.type,
            data: n.data.data,
            branching: branches({ type: n.type, data: n.data.data }),
            run: overlay?.nodes.get(n.id),
            issues: issues?.nodes.get(n.id),
            issueSource: props.issueSource,
          },
        }),
      ),
    [canvas.nodes, overlay, issues, props.selectedNodes, props.measured, props.issueSource],
  );
  const edges = useMemo(
    () =>
      canvas.edges.map((e): Edge => {
        const followed = overlay?.followed.has(e.id) ?? false;
        const problem = issues?.edges.get(e.id);
        return {
          id: e.id,
          source: e.source,
          target: e.target,
          sourceHandle: e.sourceHandle,
          selected: props.selectedEdges?.has(e.id) ?? false,
          deletable: false,
          label: problem ? `${e.label ?? ''} ⚠ ${problem.join('; ')}`.trim() : e.label,
          className: [e.label ? `edge-${e.label}` : '', followed ? 'followed' : overlay ? 'not-followed' : '', problem ? 'edge-problem' : ''].join(' '),
          markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14 },
          animated: followed && overlay?.nodes.get(e.target)?.status === 'waiting',
          data: { label: e.label },
        };
      }),
    [canvas.edges, overlay, issues, props.selectedEdges],
  );
  return (
    <ReactFlow<WorkflowFlowNode, Edge>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={props.onNodesChange}
      onEdgesChange={props.onEdgesChange}
      onConnect={props.onConnect}
      onMoveEnd={(_e, viewport) => props.onMoveEnd?.(viewport)}
      nodesDraggable={editable}
      nodesConnectable={editable}
      elementsSelectable
      deleteKeyCode={null}
      selectionKeyCode={null}
      multiSelectionKeyCode={['Shift', 'Meta', 'Control']}
      fitView
      fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
      minZoom={0.2}
    >
      <Background gap={24} />
      <Controls showInteractive={false} />
      {editable && <MiniMap pannable zoomable position="top-right" />}
      <KeepInView count={nodes.length} />
    </ReactFlow>
  );
}

/** When nodes are added (from the palette, by a paste), the view widens to show them. */
function KeepInView({ count }: { count: number }) {
  const flow = useReactFlow();
  const last = useRef(count);
  useEffect(() => {
    if (count > last.current) requestAnimationFrame(() => void flow.fitView({ padding: 0.15, maxZoom: 1, duration: 200 }));
    last.current = count;
  }, [count, flow]);
  return null;
}
