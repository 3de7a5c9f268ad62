import { useState } from 'react';
// The inbox's filters beyond the search box: status, priority, assignee, tags, customer,
// source and order. Each control names itself; lists of values (from a saved view) show as such.
import type { Member } from '../../api.ts';
import { AI, ME, PRIORITIES, SORTS, SOURCES, STATUSES, UNASSIGNED, type Sort, type TicketFilter } from '../../model/inbox.ts';

const SORT_NAMES: Record<Sort, string> = {
  '-created_at': 'newest first',
  created_at: 'oldest first',
  '-updated_at': 'last changed first',
  updated_at: 'least recently changed first',
};

type Props = { filter: TicketFilter; onChange: (filter: TicketFilter) => void; members: Member[] | null; me: string | null };

export function FilterBar({ filter, onChange, members, me }: Props) {
  const set = (patch: Partial<TicketFilter>) => onChange({ ...filter, ...patch });
  const one = (values: string[] | undefined) => (values && values.length === 1 ? values[0] : values && values.length > 1 ? '*' : '');
  const list = (value: string) => (value ? [value] : undefined);
  return (
    <div className="filters toolbar" role="group" aria-label="Filters">
      <select name="status" aria-label="Status" value={filter.status ?? ''} onChange={(e) => set({ status: e.target.value || undefined })}>
        <option value="">any status</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>{s}</option>
        ))}
      </select>
      <OneOf name="priority" label="Priority" any="any priority" options={PRIORITIES} values={filter.priority} onChange={(priority) => set({ priority })} />
      <select name="assignedTo" aria-label="Assignee" value={one(filter.assignedTo)} onChange={(e) => set({ assignedTo: list(e.target.value) })}>
        <option value="">anyone</option>
        {(filter.assignedTo?.length ?? 0) > 1 && <option value="*" disabled>several</option>}
        <option value={UNASSIGNED}>unassigned</option>
        <option value={ME}>me{me ? ` (${me})` : ''}</option>
        <option value={AI}>AI agent</option>
        {(members ?? [])
          .filter((m) => m.userId !== me)
          .map((m) => (
            <option key={m.userId} value={m.userId}>{m.userId}</option>
          ))}
      </select>
      <ListInput name="tag" label="Tags (all of them, comma-separated)" placeholder="tags" size={12} values={filter.tag} onChange={(tag) => set({ tag })} />
      <ListInput name="customerEmail" label="Customer email (comma-separated)" placeholder="customer email" size={18} values={filter.customerEmail} onChange={(customerEmail) => set({ customerEmail })} />
      <OneOf name="source" label="Source" any="any source" options={SOURCES} values={filter.source} onChange={(source) => set({ source })} />
      <select name="sort" aria-label="Order" value={filter.sort ?? ''} onChange={(e) => set({ sort: (e.target.value || undefined) as Sort | undefined })}>
        <option value="">{filter.q?.trim() ? 'best match first' : 'newest first'}</option>
        {SORTS.filter((s) => s !== '-created_at' || filter.q?.trim()).map((s) => (
          <option key={s} value={s}>{SORT_NAMES[s]}</option>
        ))}
      </select>
    </div>
  );
}

/** A filter of one value picked from `options`; a saved view's several values show as one choice, "a or b". */
function OneOf({ name, label, any, options, values, onChange }: { name: string; label: string; any: string; options: readonly string[]; values: string[] | undefined; onChange: (values: string[] | undefined) => void }) {
  const several = (values?.length ?? 0) > 1;
  return (
    <select name={name} aria-label={label} value={several ? '*' : (values?.[0] ?? '')} onChange={(e) => onChange(e.target.value ? [e.target.value] : undefined)}>
      <option value="">{any}</option>
      {several && <option value="*" disabled>{values!.join(' or ')}</option>}
      {options.map((o) => (
        <option key={o} value={o}>{o}</option>
      ))}
    </select>
  );
}

/**
 * A comma-separated list typed as text: the text stays as typed (spaces, a trailing comma),
 * the filter gets its values. The bar is drawn anew for another view, so `values` only seeds it.
 */
function ListInput({ name, label, placeholder, size, values, onChange }: { name: string; label: string; placeholder: string; size: number; values: string[] | undefined; onChange: (values: string[] | undefined) => void }) {
  const [text, setText] = useState(() => (values ?? []).join(', '));
  return (
    <input
      name={name}
      aria-label={label}
      placeholder={placeholder}
      size={size}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const list = e.target.value.split(',').map((v) => v.trim()).filter(Boolean);
        onChange(list.length > 0 ? list : undefined);
      }}
    />
  );
}
