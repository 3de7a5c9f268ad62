// A ticket's page wired to the API and the live feed: the ticket, its conversation and its
// automation runs, the agent's changes (status, priority, assignee, tags) and what they write
// (replies, notes). The state is console/src/model/ticket-view.ts.
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { api, type Execution, type TicketPatch } from '../../api.ts';
import type { LiveEvent } from '../../model/live.ts';
import { initialTicketView, ticketViewReducer, type ComposerMode } from '../../model/ticket-view.ts';
import { useLive } from '../../ui/live.tsx';

const RUNS_PAGE = 25;
/** Runs start a moment after the change that triggers them: read them this long after a change. */
const RUNS_AFTER_MS = 1000;

export type TicketPageModel = ReturnType<typeof useTicket>;

export function useTicket(ticketId: string) {
  const [state, dispatch] = useReducer(ticketViewReducer, undefined, initialTicketView);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [notesError, setNotesError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [runs, setRuns] = useState<Execution[] | null>(null);
  const [moreRuns, setMoreRuns] = useState(false);
  const [workflowNames, setWorkflowNames] = useState<ReadonlyMap<string, string>>(new Map());

  const readRuns = useCallback(async () => {
    try {
      const [r, w] = await Promise.all([api.ticketExecutions(ticketId, { limit: RUNS_PAGE }), api.listWorkflows()]);
      setRuns(r);
      setMoreRuns(r.length === RUNS_PAGE);
      setWorkflowNames(new Map(w.map((x) => [x.id, x.name])));
    } catch (err) {
      setError(err);
    }
  }, [ticketId]);

  const load = useCallback(async () => {
    try {
      const [ticket, messages] = await Promise.all([api.getTicket(ticketId), api.listMessages(ticketId, { limit: 100 })]);
      // Notes that cannot be read leave the rest of the page usable.
      const notes = await api.listNotes(ticketId).then(
        (n) => (setNotesError(null), n),
        (err) => (setNotesError(err), []),
      );
      dispatch({ type: 'loaded', ticket, messages, notes });
    } catch (err) {
      setLoadError(err);
    }
  }, [ticketId]);
  const refresh = useCallback(() => {
    void load();
    void readRuns();
  }, [load, readRuns]);
  useEffect(refresh, [refresh]);

  const runsTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (runsTimer.current && clearTimeout(runsTimer.current)), []);
  const onEvent = useCallback(
    (event: LiveEvent) => {
      if (event.ticketId !== ticketId) return;
      dispatch({ type: 'live', event });
      if (runsTimer.current) clearTimeout(runsTimer.current);
      runsTimer.current = setTimeout(() => void readRuns(), RUNS_AFTER_MS);
    },
    [ticketId, readRuns],
  );
  const feed = useLive(onEvent, refresh);

  /** Runs `write`, showing its refusal in the banner; true when it went through. */
  const attempt = useCallback(async (write: () => Promise<void>): Promise<boolean> => {
    setError(null);
    try {
      await write();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  }, []);

  const update = (patch: TicketPatch) => attempt(async () => dispatch({ type: 'ticket', ticket: await api.updateTicket(ticketId, patch) }));
  const addTag = (tag: string) => attempt(async () => dispatch({ type: 'ticket', ticket: await api.addTag(ticketId, tag) }));
  const removeTag = (tag: string) => attempt(async () => dispatch({ type: 'ticket', ticket: await api.removeTag(ticketId, tag) }));
  const send = (mode: ComposerMode, authorId: string, body: string) =>
    attempt(async () => {
      if (mode === 'reply') dispatch({ type: 'message', message: await api.reply(ticketId, { authorId, body }) });
      else dispatch({ type: 'note', note: await api.addNote(ticketId, { authorId, body }) });
    });

  const olderMessages = () =>
    attempt(async () => {
      const first = state.messages[0];
      if (first) dispatch({ type: 'olderMessages', messages: await api.listMessages(ticketId, { limit: 100, before: first.id }) });
    });
  const olderRuns = () =>
    attempt(async () => {
      if (!runs || runs.length === 0) return;
      const older = await api.ticketExecutions(ticketId, { limit: RUNS_PAGE, before: runs[runs.length - 1].id });
      setRuns([...runs, ...older]);
      setMoreRuns(older.length === RUNS_PAGE);
    });

  return { state, feed, loadError, notesError, error, dismissError: () => setError(null), runs, moreRuns, workflowNames, update, addTag, removeTag, send, olderMessages, olderRuns };
}
