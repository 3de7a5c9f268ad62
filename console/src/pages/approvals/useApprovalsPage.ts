// The Approvals page's state (console/src/model/approvals-page.ts) wired to the API: the
// approvals read, and read again every few seconds and after each decision; the names of the
// workflows and the subjects of the tickets they ask about; decisions sent as the chosen member,
// who is the tab's agent of the header's "You are" (ui/me.tsx): one person per tab.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { api } from '../../api.ts';
import { approvalsPageReducer, initialApprovalsPage } from '../../model/approvals-page.ts';
import { useMe } from '../../ui/me.tsx';

const REFRESH_MS = 5_000;

export type ApprovalsPageModel = ReturnType<typeof useApprovalsPage>;

export function useApprovalsPage() {
  const { me, setMe } = useMe();
  const [state, dispatch] = useReducer(approvalsPageReducer, undefined, () => initialApprovalsPage(me ?? ''));
  // Chosen in the header, or here: the same person.
  useEffect(() => dispatch({ type: 'actAs', userId: me ?? '' }), [me]);
  const latest = useRef(state);
  latest.current = state;
  const [now, setNow] = useState(() => Date.now());

  const load = useCallback(async () => {
    try {
      const [pending, recent] = await Promise.all([api.listApprovals({ status: 'pending', limit: 200 }), api.listApprovals({ limit: 50 })]);
      dispatch({ type: 'loaded', pending, recent });
    } catch (error) {
      dispatch({ type: 'loadFailed', error });
    }
    setNow(Date.now());
  }, []);
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  useEffect(() => {
    api.listWorkflows().then(
      (workflows) => dispatch({ type: 'workflowsLoaded', names: Object.fromEntries(workflows.map((w) => [w.id, w.name])) }),
      () => {},
    );
  }, []);

  // Each ticket's subject, read once.
  const asked = useRef(new Set<string>());
  const ticketIds = useMemo(() => [...new Set([...(state.pending ?? []), ...state.decided].map((a) => a.ticketId).filter((id): id is string => id !== null))].join(','), [state.pending, state.decided]);
  useEffect(() => {
    for (const ticketId of ticketIds.split(',').filter(Boolean)) {
      if (asked.current.has(ticketId)) continue;
      asked.current.add(ticketId);
      api.getTicket(ticketId).then((t) => dispatch({ type: 'ticketLoaded', ticketId, subject: t.subject }), () => {});
    }
  }, [ticketIds]);

  const actAs = useCallback((userId: string) => setMe(userId || null), [setMe]);

  const decide = useCallback(
    async (approvalId: string, decision: 'approve' | 'reject') => {
      const { actingAs, comments } = latest.current;
      const comment = comments[approvalId]?.trim();
      dispatch({ type: 'decideStarted', approvalId, decision });
      try {
        const approval = await api.decideApproval(approvalId, { userId: actingAs, decision, ...(comment ? { comment } : {}) });
        dispatch({ type: 'decided', approval });
      } catch (error) {
        dispatch({ type: 'decideFailed', approvalId, error });
        void load();
      }
    },
    [load],
  );

  return { state, dispatch, now, actAs, decide, reload: load };
}
