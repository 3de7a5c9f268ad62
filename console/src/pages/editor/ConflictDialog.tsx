import type { Conflict } from '../../model/editor.ts';
import { Dialog } from '../../ui/common.tsx';

/** A save refused because a colleague saved first: keep editing, take theirs, or overwrite it with mine. */
export function ConflictDialog({ conflict, onClose, onReload, onOverwrite }: { conflict: Conflict; onClose: () => void; onReload: () => void; onOverwrite: () => void }) {
  return (
    <Dialog title="Someone else saved this workflow" onClose={onClose}>
      <p data-testid="conflict">
        While you were editing, it was saved by someone else{conflict.version !== null ? ` (it is now at version ${conflict.version})` : ''}. Your changes are not saved yet.
      </p>
      <div className="buttons">
        <button type="button" onClick={onClose}>Keep editing</button>
        <button type="button" data-action="reload" onClick={onReload}>
          Reload theirs (drop mine)
        </button>
        <button type="button" className="danger" data-action="overwrite" onClick={onOverwrite}>
          Overwrite with mine
        </button>
      </div>
    </Dialog>
  );
}
