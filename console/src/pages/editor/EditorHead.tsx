import { href } from '../../router.ts';
import type { Draft } from '../../model/editor.ts';
import type { Editor } from './useEditor.ts';

/** The workflow's name and description, and the toolbar: undo, redo, tidy up, save, active. */
export function EditorHead({ editor, draft }: { editor: Editor; draft: Draft }) {
  const { dispatch, dirty, state } = editor;
  const { workflow, history } = draft;
  return (
    <div className="editor-head">
      <div className="titles">
        <input className="title-input" name="workflowName" aria-label="Workflow name" value={draft.name} maxLength={200} onChange={(e) => dispatch({ type: 'rename', name: e.target.value })} />
        <input className="description-input" name="workflowDescription" aria-label="Description" placeholder="What it is for (optional)" value={draft.description} maxLength={2000} onChange={(e) => dispatch({ type: 'describe', description: e.target.value })} />
      </div>
      <div className="toolbar">
        <span className="muted" data-testid="version">version {workflow.version}</span>
        {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
        <button type="button" onClick={() => dispatch({ type: 'undo' })} disabled={history.past.length === 0} title="Undo (Ctrl+Z)">Undo</button>
        <button type="button" onClick={() => dispatch({ type: 'redo' })} disabled={history.future.length === 0} title="Redo (Ctrl+Shift+Z)">Redo</button>
        <button type="button" onClick={() => dispatch({ type: 'tidy' })}>Tidy up</button>
        <button type="button" className="primary" data-action="save" onClick={() => void editor.save()} disabled={state.saving || !dirty} title="Save (Ctrl+S)">
          {state.saving ? 'Saving…' : 'Save'}
        </button>
        <label className="switch">
          <input type="checkbox" name="isActive" checked={workflow.isActive} onChange={(e) => void editor.setActive(e.target.checked)} />
          {workflow.isActive ? 'active' : 'inactive'}
        </label>
        <a href={href.runs(workflow.id)}>Runs</a>
      </div>
    </div>
  );
}
