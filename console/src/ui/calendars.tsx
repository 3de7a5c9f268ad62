// The workspace's calendars, read once for every page (pickers, names on the canvas, the
// dry run's zones) and again when a page changes them or asks to.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, type Calendar } from '../api.ts';

export type Calendars = {
  /** Null until read. */
  list: Calendar[] | null;
  error: unknown;
  byId: (id: unknown) => Calendar | undefined;
  reload: () => Promise<void>;
};

const CalendarsContext = createContext<Calendars>({ list: null, error: null, byId: () => undefined, reload: async () => {} });

export function CalendarsProvider({ children }: { children: ReactNode }) {
  const [list, setList] = useState<Calendar[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = useCallback(async () => {
    try {
      setList(await api.listCalendars());
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    void reload();
    // A calendar made in another tab shows up when this one is looked at again.
    const onVisible = () => document.visibilityState === 'visible' && void reload();
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [reload]);
  const value = useMemo<Calendars>(() => {
    const index = new Map((list ?? []).map((c) => [c.id.toLowerCase(), c]));
    return { list, error, reload, byId: (id) => (typeof id === 'string' ? index.get(id.toLowerCase()) : undefined) };
  }, [list, error, reload]);
  return <CalendarsContext.Provider value={value}>{children}</CalendarsContext.Provider>;
}

export function useCalendars(): Calendars {
  return useContext(CalendarsContext);
}
