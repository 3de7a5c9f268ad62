// The editor's keyboard: Delete removes the selection, Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo
// and redo, Ctrl+C / Ctrl+V copy and paste, Ctrl+S saves. Keys typed into a field or a dialog
// stay theirs, but for Ctrl+S.
import { useEffect, useRef, type Dispatch } from 'react';
import type { EditorAction } from '../../model/editor.ts';

export function useEditorKeys(dispatch: Dispatch<EditorAction>, save: () => Promise<void>): void {
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 's') {
        e.preventDefault();
        void saveRef.current();
        return;
      }
      const target = e.target as HTMLElement | null;
      if (target && (target.closest('input, textarea, select, [contenteditable="true"]') || target.closest('dialog'))) return;
      const action = keyAction(key, mod, e.shiftKey);
      if (!action) return;
      // Ctrl+C leaves the browser's own copy alone.
      if (action.type !== 'copy') e.preventDefault();
      dispatch(action);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [dispatch]);
}

function keyAction(key: string, mod: boolean, shift: boolean): EditorAction | null {
  if (key === 'delete' || key === 'backspace') return { type: 'removeSelected' };
  if (!mod) return null;
  if (key === 'z' && !shift) return { type: 'undo' };
  if (key === 'y' || (key === 'z' && shift)) return { type: 'redo' };
  if (key === 'c') return { type: 'copy' };
  if (key === 'v') return { type: 'paste' };
  return null;
}
