// The workflow editor's state (console/src/model/editor.ts) wired to the API: reading the
// workflow, saving it, switching it on and off, and a colleague's save met as a conflict.
import { useCallback, useEffect, useMemo, useReducer, useRef, type Dispatch } from 'react';
import { api, ApiError } from '../../api.ts';
import { canvasToGraph } from '../../model/canvas.ts';
import { editorReducer, graphOf, initialEditorState, isDirty, pageIssues, savePatch, shownIssues, triggerTypeOf, type EditorAction, type Retry } from '../../model/editor.ts';
import type { RunOverlay } from '../../model/overlay.ts';
import { useLeaveGuard } from '../../router.ts';
import { useEditorKeys } from './useEditorKeys.ts';

export type Editor = ReturnType<typeof useEditor>;

export function useEditor(workflowId: string) {
  const [state, dispatch] = useReducer(editorReducer, undefined, initialEditorState);
  // The calls below run after a click or a key: they act on the state as it is then.
  const latest = useRef(state);
  latest.current = state;

  const load = useCallback(async () => {
    try {
      const { workflow, etag } = await api.getWorkflow(workflowId);
      dispatch({ type: 'loaded', workflow, etag });
    } catch (error) {
      dispatch({ type: 'loadFailed', error });
    }
  }, [workflowId]);
  useEffect(() => {
    void load();
  }, [load]);

  const save = useCallback(async (ifMatch?: string | null) => {
    const draft = latest.current.draft;
    if (!draft) return;
    dispatch({ type: 'saveStarted' });
    const patch = savePatch(draft);
    if (!patch) return;
    const canvas = draft.history.present;
    try {
      const saved = await api.updateWorkflow(draft.workflow.id, patch, ifMatch === undefined ? draft.etag : ifMatch);
      dispatch({ type: 'saved', ...saved, baseline: { graph: graphOf(draft), name: draft.name, description: draft.description } });
    } catch (error) {
      if (!(await conflicted(error, draft.workflow.id, { kind: 'save' }, dispatch))) dispatch({ type: 'saveFailed', error, canvas });
    }
  }, []);

  const setActive = useCallback(async (isActive: boolean, ifMatch?: string | null) => {
    const draft = latest.current.draft;
    if (!draft) return;
    dispatch({ type: 'activationStarted' });
    try {
      const saved = await api.updateWorkflow(draft.workflow.id, { isActive }, ifMatch === undefined ? draft.etag : ifMatch);
      dispatch({ type: 'activated', ...saved });
    } catch (error) {
      if (!(await conflicted(error, draft.workflow.id, { kind: 'activate', isActive }, dispatch))) dispatch({ type: 'activationFailed', error });
    }
  }, []);

  /** "Overwrite with mine": what was refused, sent again over the colleague's save. */
  const overwrite = useCallback(() => {
    const conflict = latest.current.conflict;
    if (!conflict) return;
    void (conflict.retry.kind === 'save' ? save(conflict.etag) : setActive(conflict.retry.isActive, conflict.etag));
  }, [save, setActive]);

  /** "Reload theirs (drop mine)". */
  const reload = useCallback(() => {
    dispatch({ type: 'dismiss', what: 'conflict' });
    void load();
  }, [load]);

  // Stable: the "Try it" panel clears its overlay when this changes.
  const showOverlay = useCallback((overlay: RunOverlay | null) => dispatch({ type: 'overlay', overlay }), []);

  const { draft } = state;
  const canvas = draft?.history.present;
  const graph = useMemo(() => (canvas ? canvasToGraph(canvas) : null), [canvas]);
  const triggerType = draft ? triggerTypeOf(draft) : 'manual';
  const dirty = !!(draft && graph && isDirty(draft, graph));
  const live = useMemo(() => (canvas && graph ? pageIssues(canvas, graph, triggerType) : undefined), [canvas, graph, triggerType]);
  const issues = shownIssues(state, live);

  useLeaveGuard(dirty, 'This workflow has unsaved changes. Leave without saving them?', { closingTab: true });
  useEditorKeys(dispatch, save);

  return { state, dispatch, graph, triggerType, dirty, issues, save, setActive, overwrite, reload, showOverlay };
}

/** A save refused because someone saved since (412): a conflict to show, with the version now current. */
async function conflicted(error: unknown, workflowId: string, retry: Retry, dispatch: Dispatch<EditorAction>): Promise<boolean> {
  if (!(error instanceof ApiError && error.code === 'precondition_failed')) return false;
  dispatch({ type: 'conflicted', conflict: { etag: error.etag, version: await currentVersion(workflowId), retry } });
  return true;
}

async function currentVersion(workflowId: string): Promise<number | null> {
  try {
    return (await api.getWorkflow(workflowId)).workflow.version;
  } catch {
    return null;
  }
}
