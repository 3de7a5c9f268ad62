// The live feed shared by the pages of a signed-in tab: one connection (console/src/feed.ts),
// its events handed to every page that listens, and what the header says of it. A page that
// follows the feed reads its data again when the feed comes back after a break and, while it is
// down, at a slow pace (every 30 s): never a poll every second.
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { followFeed } from '../feed.ts';
import type { FeedState, LiveEvent } from '../model/live.ts';

type Listener = (event: LiveEvent) => void;
type Live = { state: FeedState; listen: (listener: Listener) => () => void };

const LiveContext = createContext<Live>({ state: 'down', listen: () => () => {} });

/** How often a page reads its data again while the feed is down. */
export const FALLBACK_REFRESH_MS = 30_000;

export function LiveProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<FeedState>('connecting');
  const listeners = useRef(new Set<Listener>());
  const [live] = useState(() => ({
    listen: (listener: Listener) => {
      listeners.current.add(listener);
      return () => void listeners.current.delete(listener);
    },
  }));
  useEffect(
    () =>
      followFeed({
        onEvent: (event) => listeners.current.forEach((l) => l(event)),
        onState: setState,
      }),
    [],
  );
  return <LiveContext.Provider value={{ state, listen: live.listen }}>{children}</LiveContext.Provider>;
}

export const useFeedState = (): FeedState => useContext(LiveContext).state;

/**
 * Calls `onEvent` with each event of the feed, and `refresh` when the data may have moved on
 * without the page hearing of it: the feed back after a break, or every 30 s while it is down.
 */
export function useLive(onEvent: Listener, refresh: () => void): FeedState {
  const { state, listen } = useContext(LiveContext);
  const latest = useRef({ onEvent, refresh });
  latest.current = { onEvent, refresh };
  useEffect(() => listen((event) => latest.current.onEvent(event)), [listen]);
  const previous = useRef(state);
  useEffect(() => {
    const was = previous.current;
    previous.current = state;
    if (state === 'live' && was === 'down') latest.current.refresh();
    if (state !== 'down') return;
    const timer = setInterval(() => latest.current.refresh(), FALLBACK_REFRESH_MS);
    return () => clearInterval(timer);
  }, [state]);
  return state;
}

/** The header's word on the feed, for people and screen readers. */
export function FeedIndicator() {
  const state = useFeedState();
  const text = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Offline: refreshing every 30 s';
  return (
    <span className={`feed feed-${state}`} role="status" data-feed={state}>
      {text}
    </span>
  );
}
