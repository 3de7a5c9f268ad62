// "Who am I": the agent using this tab, chosen once from the workspace's members and kept in the
// tab (sessionStorage, like the key), so "Mine", replies and notes are theirs. The members are
// the ones ui/members.tsx reads once for every page.
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import type { Member } from '../api.ts';
import { useMembers } from './members.tsx';

const KEY = 'deskflow.me';

type Me = {
  me: string | null;
  setMe: (userId: string | null) => void;
  /** Null until read (or when they cannot be). */
  members: Member[] | null;
  membersError: unknown;
};

const MeContext = createContext<Me>({ me: null, setMe: () => {}, members: null, membersError: null });

export function MeProvider({ children }: { children: ReactNode }) {
  const [me, setMeState] = useState<string | null>(() => sessionStorage.getItem(KEY));
  const { list: members, error: membersError } = useMembers();
  const setMe = useCallback((userId: string | null) => {
    if (userId) sessionStorage.setItem(KEY, userId);
    else sessionStorage.removeItem(KEY);
    setMeState(userId);
  }, []);
  return <MeContext.Provider value={{ me, setMe, members, membersError }}>{children}</MeContext.Provider>;
}

export const useMe = (): Me => useContext(MeContext);

/** The header's picker of who is using the tab. */
export function MePicker() {
  const { me, setMe, members } = useMe();
  const known = members ?? [];
  return (
    <label className="me-picker">
      You are{' '}
      <select name="me" value={me ?? ''} onChange={(e) => setMe(e.target.value || null)} data-testid="me">
        <option value="">choose…</option>
        {me && !known.some((m) => m.userId === me) && <option value={me}>{me}</option>}
        {known.map((m) => (
          <option key={m.userId} value={m.userId}>
            {m.userId}
            {m.role === 'admin' ? ' (admin)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
