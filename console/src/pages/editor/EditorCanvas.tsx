import { useCallback } from 'react';
import { ReactFlowProvider, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { Draft } from '../../model/editor.ts';
import { FlowCanvas } from '../../ui/FlowCanvas.tsx';
import type { WorkflowFlowNode } from '../../ui/WorkflowNode.tsx';
import type { Editor } from './useEditor.ts';

/** The graph being drawn: what the canvas reports (drags, selections, sizes, connections) goes to the editor's state. */
export function EditorCanvas({ editor, draft }: { editor: Editor; draft: Draft }) {
  const { dispatch, state, issues } = editor;
  const onNodesChange = useCallback((changes: NodeChange<WorkflowFlowNode>[]) => dispatch({ type: 'nodesChanged', changes, at: Date.now() }), [dispatch]);
  const onEdgesChange = useCallback((changes: EdgeChange[]) => dispatch({ type: 'edgesChanged', changes }), [dispatch]);
  const onConnect = useCallback((connection: Connection) => dispatch({ type: 'connect', connection }), [dispatch]);
  return (
    <div className="canvas" data-testid="canvas">
      <ReactFlowProvider>
        <FlowCanvas
          canvas={draft.history.present}
          selectedNodes={state.selectedNodes}
          selectedEdges={state.selectedEdges}
          measured={state.measured}
          overlay={state.overlay}
          issues={issues?.issues}
          issueSource={issues?.source}
          editable
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onConnect={onConnect}
        />
      </ReactFlowProvider>
    </div>
  );
}
