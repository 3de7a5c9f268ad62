// The workspace's members and admins, read once for every page (the approvers of a
// request_approval, who decides on the Approvals page) and again when a page asks to.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, type Member } from '../api.ts';

export type Members = {
  /** Null until read. */
  list: Member[] | null;
  error: unknown;
  reload: () => Promise<void>;
};

const MembersContext = createContext<Members>({ list: null, error: null, reload: async () => {} });

export function MembersProvider({ children }: { children: ReactNode }) {
  const [list, setList] = useState<Member[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = useCallback(async () => {
    try {
      setList(await api.listMembers());
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  const value = useMemo<Members>(() => ({ list, error, reload }), [list, error, reload]);
  return <MembersContext.Provider value={value}>{children}</MembersContext.Provider>;
}

export function useMembers(): Members {
  return useContext(MembersContext);
}
