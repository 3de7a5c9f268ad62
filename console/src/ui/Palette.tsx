import type { NewNode } from '../model/editor.ts';
import { PALETTE } from '../model/fields.ts';

/** Every node the API accepts, from src/graph's lists: a condition per operator, a group, an action per action type. */
export function Palette({ onAdd }: { onAdd: (item: NewNode) => void }) {
  return (
    <div className="palette" aria-label="Palette">
      <h3>Conditions</h3>
      <div className="palette-items">
        {PALETTE.operators.map((op) => (
          <button key={op} type="button" data-palette={`condition:${op}`} onClick={() => onAdd({ kind: 'condition', operator: op })}>
            {op.replace(/_/g, ' ')}
          </button>
        ))}
        <button type="button" data-palette="condition:group" onClick={() => onAdd({ kind: 'group' })}>all / any group</button>
      </div>
      <h3>Actions</h3>
      <div className="palette-items">
        {PALETTE.actions.map((a) => (
          <button key={a} type="button" data-palette={`action:${a}`} onClick={() => onAdd({ kind: 'action', actionType: a })}>
            {a.replace(/_/g, ' ')}
          </button>
        ))}
      </div>
    </div>
  );
}
