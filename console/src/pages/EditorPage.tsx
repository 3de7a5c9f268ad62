import { selectedNode } from '../model/editor.ts';
import { ErrorBanner, Loading, NoticeBanner } from '../ui/common.tsx';
import { NodeForm } from '../ui/NodeForm.tsx';
import { Palette } from '../ui/Palette.tsx';
import { TryPanel } from '../ui/TryPanel.tsx';
import { ConflictDialog } from './editor/ConflictDialog.tsx';
import { EditorCanvas } from './editor/EditorCanvas.tsx';
import { EditorHead } from './editor/EditorHead.tsx';
import { useEditor } from './editor/useEditor.ts';

/**
 * A workflow drawn as a graph: the palette (or the "Try it" panel) on the left, the canvas, and
 * the selected node's form on the right. Its state is console/src/model/editor.ts.
 */
export function EditorPage({ workflowId }: { workflowId: string }) {
  const editor = useEditor(workflowId);
  const { state, dispatch, graph, issues } = editor;
  const { draft } = state;
  if (!draft || !graph) return state.error ? <ErrorBanner error={state.error} /> : <Loading />;
  const selected = selectedNode(state);

  return (
    <section className="editor">
      <EditorHead editor={editor} draft={draft} />
      <ErrorBanner error={state.error} onClose={() => dispatch({ type: 'dismiss', what: 'error' })} />
      <NoticeBanner notice={state.notice} onClose={() => dispatch({ type: 'dismiss', what: 'notice' })} />
      {issues && issues.source === 'page' && issues.issues.general.length > 0 && (
        <div className="banner warn" data-testid="graph-issues">
          {issues.issues.general.map((i, k) => (
            <div key={k}>{i.message}</div>
          ))}
        </div>
      )}
      <div className="editor-body">
        <aside className="left">
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={state.tab === 'edit'} onClick={() => dispatch({ type: 'showTab', tab: 'edit' })}>Draw</button>
            <button type="button" role="tab" aria-selected={state.tab === 'try'} data-tab="try" onClick={() => dispatch({ type: 'showTab', tab: 'try' })}>Try it</button>
          </div>
          {state.tab === 'edit' ? (
            <>
              <p className="muted small">Select a node, then pick what follows it. Drag from a handle to connect; Delete removes, Ctrl+Z undoes, Ctrl+C / Ctrl+V copy.</p>
              <div role="status" data-testid="palette-hint">
                {state.hint && <p className="banner warn small">{state.hint}</p>}
              </div>
              <Palette onAdd={(node) => dispatch({ type: 'add', node })} />
            </>
          ) : (
            <TryPanel workflow={draft.workflow} graph={graph} triggerType={editor.triggerType} dirty={editor.dirty} canvas={draft.history.present} onOverlay={editor.showOverlay} />
          )}
        </aside>
        <EditorCanvas editor={editor} draft={draft} />
        <aside className="right">
          {selected ? (
            <NodeForm
              key={selected.id}
              nodeId={selected.id}
              kind={selected.type}
              data={selected.data.data}
              triggerType={editor.triggerType}
              issues={issues?.issues.nodes.get(selected.id)}
              onChange={(data, field) => dispatch({ type: 'editNode', id: selected.id, data, field, at: Date.now() })}
              onTriggerTypeChange={(triggerType) => dispatch({ type: 'changeTrigger', triggerType })}
            />
          ) : (
            <p className="muted">Select a node to edit it.</p>
          )}
        </aside>
      </div>
      {state.conflict && <ConflictDialog conflict={state.conflict} onClose={() => dispatch({ type: 'dismiss', what: 'conflict' })} onReload={editor.reload} onOverwrite={editor.overwrite} />}
    </section>
  );
}
