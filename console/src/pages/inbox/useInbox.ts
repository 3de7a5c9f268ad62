// The inbox wired to the API and the live feed: the views (built in and saved in this browser),
// their counts, and the page of tickets the current filter selects, kept up to date by the feed.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, apiKey, type Ticket } from '../../api.ts';
import { BUILT_IN_VIEWS, parseSavedViews, savedViewsKey, serializeSavedViews, type TicketFilter, type View } from '../../model/inbox.ts';
import { applyLiveEvent } from '../../model/inbox-list.ts';
import type { LiveEvent } from '../../model/live.ts';
import { useLive } from '../../ui/live.tsx';

export const PER_PAGE = 25;
/** A burst of events reads the list and the counts once, this long after its first event. */
const SETTLE_MS = 300;

/** The views saved with this tab's key, kept in localStorage; every built-in view before them. */
export function useViews(): { views: View[]; saved: View[]; setSaved: (views: View[]) => void } {
  const storageKey = savedViewsKey(apiKey.get() ?? '');
  const [saved, setSavedState] = useState<View[]>(() => parseSavedViews(localStorage.getItem(storageKey)));
  const setSaved = useCallback(
    (views: View[]) => {
      localStorage.setItem(storageKey, serializeSavedViews(views));
      setSavedState(views);
    },
    [storageKey],
  );
  // Another tab of the same key saved or deleted a view.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => e.key === storageKey && setSavedState(parseSavedViews(e.newValue));
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [storageKey]);
  const views = useMemo(() => [...BUILT_IN_VIEWS, ...saved], [saved]);
  return { views, saved, setSaved };
}

/** Calls `fn` once, `ms` after the first of a burst of calls to the returned function. */
function useSettled(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  }, [ms]);
}

/** How many tickets each view holds (the total of a one-ticket page), read again as tickets change. */
export function useViewCounts(views: View[], me: string | null): ReadonlyMap<string, number | null> {
  const [counts, setCounts] = useState<ReadonlyMap<string, number | null>>(new Map());
  const generation = useRef(0);
  const read = useCallback(() => {
    const mine = ++generation.current;
    void Promise.all(
      views.map((v) =>
        api.listTickets({ filter: v.filter, me, perPage: 1 }).then(
          (page) => [v.id, page.pagination.total] as const,
          () => [v.id, null] as const,
        ),
      ),
    ).then((all) => mine === generation.current && setCounts(new Map(all)));
  }, [views, me]);
  useEffect(read, [read]);
  const later = useSettled(read, SETTLE_MS);
  useLive(later, read);
  return counts;
}

export type TicketList = {
  rows: Ticket[] | null;
  total: number;
  error: unknown;
  /** Reads the page again (after a change made here). */
  reload: () => void;
};

/** The page `page` of the tickets `filter` selects as the agent `me`, following the feed. */
export function useTicketList(filter: TicketFilter, me: string | null, page: number): TicketList {
  const [rows, setRows] = useState<Ticket[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const read = useCallback(() => {
    const mine = ++generation.current;
    api.listTickets({ filter, me, page, perPage: PER_PAGE }).then(
      (answer) => {
        if (mine !== generation.current) return;
        setRows(answer.data);
        setTotal(answer.pagination.total);
        setError(null);
      },
      (err) => {
        if (mine !== generation.current) return;
        setRows([]);
        setTotal(0);
        setError(err);
      },
    );
  }, [filter, me, page]);
  // Typing in the search box reads the list once typing pauses.
  useEffect(() => {
    const timer = setTimeout(read, filter.q ? 250 : 0);
    return () => clearTimeout(timer);
  }, [read, filter.q]);
  const later = useSettled(read, SETTLE_MS);
  const latestRows = useRef(rows);
  latestRows.current = rows;
  const onEvent = useCallback(
    (event: LiveEvent) => {
      const shown = latestRows.current;
      if (!shown) return;
      const change = applyLiveEvent(shown, event, filter, me, { page, perPage: PER_PAGE });
      if (change.rows !== shown) setRows(change.rows);
      if (change.refetch) later();
    },
    [filter, me, page, later],
  );
  useLive(onEvent, read);
  return { rows, total, error, reload: read };
}
