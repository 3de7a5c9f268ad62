import { useState, type FormEvent } from 'react';
import type { Member, Ticket, TicketPatch } from '../../api.ts';
import { AI, PRIORITIES, STATUSES } from '../../model/inbox.ts';
import { tagToAdd } from '../../model/ticket-view.ts';

type Props = {
  ticket: Ticket;
  members: Member[] | null;
  me: string | null;
  onUpdate: (patch: TicketPatch) => Promise<boolean>;
  onAddTag: (tag: string) => Promise<boolean>;
  onRemoveTag: (tag: string) => Promise<boolean>;
};

/** Status, priority, assignee and tags, each changed at once (the API's answer is what shows). */
export function TicketControls({ ticket, members, me, onUpdate, onAddTag, onRemoveTag }: Props) {
  const assignees = [...new Set([...(members ?? []).map((m) => m.userId), ...(ticket.assignedTo ? [ticket.assignedTo] : [])])].filter((a) => a !== AI);
  return (
    <div className="ticket-controls" role="group" aria-label="Ticket">
      <Choice label="Status" name="status" value={ticket.status} options={STATUSES} onPick={(status) => void onUpdate({ status })} />
      <Choice label="Priority" name="priority" value={ticket.priority} options={PRIORITIES} onPick={(priority) => void onUpdate({ priority })} />
      <label>
        Assignee
        <select name="assignedTo" value={ticket.assignedTo ?? ''} onChange={(e) => e.target.value && void onUpdate({ assignedTo: e.target.value })}>
          {ticket.assignedTo === null && <option value="" disabled>unassigned</option>}
          {assignees.map((a) => (
            <option key={a} value={a}>{a === me ? `${a} (you)` : a}</option>
          ))}
          <option value={AI}>AI agent</option>
        </select>
      </label>
      {me && ticket.assignedTo !== me && (
        <button type="button" data-action="take" onClick={() => void onUpdate({ assignedTo: me })}>
          Assign to me
        </button>
      )}
      <Tags tags={ticket.tags} onAdd={onAddTag} onRemove={onRemoveTag} />
    </div>
  );
}

function Choice({ label, name, value, options, onPick }: { label: string; name: string; value: string; options: readonly string[]; onPick: (value: string) => void }) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(e) => onPick(e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

function Tags({ tags, onAdd, onRemove }: { tags: string[]; onAdd: (tag: string) => Promise<boolean>; onRemove: (tag: string) => Promise<boolean> }) {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = tagToAdd(typed, tags);
    if ('problem' in wanted) return setProblem(wanted.problem);
    setProblem(null);
    if (await onAdd(wanted.tag)) setTyped('');
  };
  return (
    <div className="tags">
      <span className="small muted" id="tags-label">Tags</span>
      <ul className="tag-list" aria-labelledby="tags-label" data-testid="tags">
        {tags.map((t) => (
          <li key={t} className="tag" data-tag={t}>
            <span className="user-text">{t}</span>
            <button type="button" className="link" aria-label={`Remove the tag ${t}`} onClick={() => void onRemove(t)}>×</button>
          </li>
        ))}
      </ul>
      <form className="row" onSubmit={(e) => void add(e)}>
        <input name="newTag" aria-label="Add a tag" placeholder="add a tag" size={12} maxLength={100} value={typed} onChange={(e) => setTyped(e.target.value)} />
        <button type="submit" data-action="add-tag">Add</button>
      </form>
      <span className="small error-text" role="status">{problem}</span>
    </div>
  );
}
