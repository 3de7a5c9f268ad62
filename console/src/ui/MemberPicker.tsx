import { useMembers } from './members.tsx';

type Props = {
  id: string;
  name: string;
  value: unknown;
  onChange: (userIds: string[]) => void;
};

/**
 * Some of the workspace's members and admins, picked by checkbox, in the order picked. An id
 * the workspace does not have (removed since) stays visible as such, so it can be unticked.
 */
export function MemberPicker({ id, name, value, onChange }: Props) {
  const { list, error, reload } = useMembers();
  const chosen = Array.isArray(value) ? value.map(String) : [];
  const known = new Set((list ?? []).map((m) => m.userId));
  const strangers = list === null ? [] : chosen.filter((c) => !known.has(c));
  const toggle = (userId: string, on: boolean) => onChange(on ? [...chosen.filter((c) => c !== userId), userId] : chosen.filter((c) => c !== userId));
  return (
    <div className="member-picker" id={id} data-members={name}>
      <div className="choices">
        {(list ?? []).map((m) => (
          <label key={m.userId} className="inline">
            <input type="checkbox" name={name} value={m.userId} checked={chosen.includes(m.userId)} onChange={(e) => toggle(m.userId, e.target.checked)} />
            {m.userId}
            {m.role === 'admin' && <span className="muted small">admin</span>}
          </label>
        ))}
        {strangers.map((userId) => (
          <label key={userId} className="inline error-text">
            <input type="checkbox" name={name} value={userId} checked onChange={() => toggle(userId, false)} />
            {`${userId}: not a member of this workspace`}
          </label>
        ))}
      </div>
      {list !== null && list.length === 0 && (
        <p className="muted small">This workspace has no members yet. An operator adds them with <code>npm run admin -- member add</code>.</p>
      )}
      {error ? <p className="error-text small">The members could not be read: {error instanceof Error ? error.message : String(error)}</p> : null}
      <div className="small">
        <button type="button" className="link" onClick={() => void reload()}>reload the members</button>
      </div>
    </div>
  );
}
