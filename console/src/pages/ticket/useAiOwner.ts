// The AI owner's part of a ticket's page wired to the API and the live feed: its turns, read
// again when the feed says the ticket changed (a reply, a hand-off) and, for a while, when a
// turn is due that no event would announce (a draft), the titles of the articles
// they cite, sending a waiting draft as the agent of the tab, and the dry run. The state is
// console/src/model/ai-owner.ts.
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { api, ApiError } from '../../api.ts';
import { aiOwnerReducer, awaitsOwnerTurn, initialAiOwner, OWNER_TURN_CHECKS_MS, rereadsTurns, unknownCitations } from '../../model/ai-owner.ts';
import type { LiveEvent } from '../../model/live.ts';
import { useLive } from '../../ui/live.tsx';

export function useAiOwner(ticketId: string) {
  const [state, dispatch] = useReducer(aiOwnerReducer, undefined, initialAiOwner);

  // Only the latest read is kept: an answer to an older one that arrives late is dropped.
  // Each read answers how many turns it found (null when it failed or was overtaken).
  const reads = useRef(0);
  const readTurns = useCallback(async (): Promise<number | null> => {
    const read = ++reads.current;
    try {
      const turns = await api.aiTurns(ticketId);
      if (read !== reads.current) return null;
      dispatch({ type: 'turnsLoaded', turns });
      return turns.length;
    } catch (err) {
      if (read === reads.current) dispatch({ type: 'turnsFailed', error: err });
      return null;
    }
  }, [ticketId]);
  useEffect(() => void readTurns(), [readTurns]);

  // The owner's next turn, awaited after the events that call for one (awaitsOwnerTurn).
  const known = useRef(0);
  known.current = state.turns?.length ?? 0;
  // Each wait has a number: a newer wait, or leaving the page, ends the one before (its read in flight included).
  const awaiting = useRef<{ wait: number; timer: ReturnType<typeof setTimeout> | null }>({ wait: 0, timer: null });
  const stopAwaiting = () => {
    if (awaiting.current.timer !== null) clearTimeout(awaiting.current.timer);
    awaiting.current = { wait: awaiting.current.wait + 1, timer: null };
  };
  useEffect(() => stopAwaiting, [ticketId]);
  const awaitTurn = useCallback(
    (before: number) => {
      stopAwaiting();
      const wait = awaiting.current.wait;
      const check = (i: number) => {
        if (i >= OWNER_TURN_CHECKS_MS.length || awaiting.current.wait !== wait) return;
        awaiting.current.timer = setTimeout(() => {
          void readTurns().then((found) => {
            if (found === null || found <= before) check(i + 1);
          });
        }, OWNER_TURN_CHECKS_MS[i]);
      };
      check(0);
    },
    [readTurns],
  );

  const onEvent = useCallback(
    (event: LiveEvent) => {
      if (awaitsOwnerTurn(event, ticketId)) awaitTurn(known.current);
      if (rereadsTurns(event, ticketId)) void readTurns();
    },
    [ticketId, readTurns, awaitTurn],
  );
  useLive(onEvent, readTurns);

  // Each cited article's title is asked for once; one that is gone is shown as such.
  const asked = useRef(new Set<string>());
  const missing = unknownCitations(state).filter((id) => !asked.current.has(id));
  useEffect(() => {
    if (missing.length === 0) return;
    for (const id of missing) asked.current.add(id);
    void Promise.all(
      missing.map((id) =>
        api.getArticle(id).then(
          (a): [string, string | null] => [id, a.title],
          (): [string, string | null] => [id, null],
        ),
      ),
    ).then((pairs) => dispatch({ type: 'titlesLoaded', titles: Object.fromEntries(pairs) }));
  }, [missing.join(',')]);

  const dryRun = useCallback(async () => {
    dispatch({ type: 'dryRunStarted' });
    try {
      dispatch({ type: 'dryRunAnswered', answer: await api.aiDryRun(ticketId) });
    } catch (err) {
      dispatch({ type: 'dryRunFailed', error: err });
    }
  }, [ticketId]);

  const sendDraft = useCallback(
    async (draftId: string, authorId: string) => {
      dispatch({ type: 'sendStarted', draftId });
      try {
        dispatch({ type: 'sent', turn: await api.sendAiDraft(ticketId, draftId, authorId) });
      } catch (err) {
        dispatch({ type: 'sendFailed', draftId, error: err });
        // Sent by someone else meanwhile, or replaced: show what it is now.
        if (err instanceof ApiError && err.code === 'draft_not_waiting') void readTurns();
      }
    },
    [ticketId, readTurns],
  );

  return { state, dryRun, closeDryRun: () => dispatch({ type: 'dryRunClosed' }), sendDraft };
}
