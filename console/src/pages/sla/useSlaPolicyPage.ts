// An SLA policy's page state (console/src/model/sla-page.ts) wired to the API: reading the
// policy, creating or saving it, and trying it on the recorded tickets.
import { useCallback, useEffect, useReducer, useRef, type FormEvent } from 'react';
import { api } from '../../api.ts';
import { newSlaForm, slaInput } from '../../model/sla-form.ts';
import { initialSlaPage, isSlaDirty, SAVED_NOTICE, slaMessages, slaPageReducer } from '../../model/sla-page.ts';
import { guardLeaving, href, navigate, useLeaveGuard } from '../../router.ts';

export type SlaPolicyPageModel = ReturnType<typeof useSlaPolicyPage>;

/** `policyId` null: a new policy. */
export function useSlaPolicyPage(policyId: string | null) {
  const [state, dispatch] = useReducer(slaPageReducer, policyId, (id) => initialSlaPage(id === null ? newSlaForm() : null));
  // A save or a backtest acts on the form as it is when the user sends it.
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    if (policyId === null) return;
    api.getSlaPolicy(policyId).then(
      (policy) => dispatch({ type: 'loaded', policy }),
      (error: unknown) => dispatch({ type: 'loadFailed', error }),
    );
  }, [policyId]);

  const dirty = isSlaDirty(state);
  useLeaveGuard(dirty, 'This policy has unsaved changes. Leave without saving them?');

  const save = useCallback(async (e: FormEvent) => {
    e.preventDefault();
    const { policy, form } = latest.current;
    if (!form) return;
    dispatch({ type: 'saveStarted' });
    try {
      const input = slaInput(form);
      const saved = policy ? await api.updateSlaPolicy(policy.id, input) : await api.createSlaPolicy(input);
      dispatch({ type: 'saved', policy: saved, notice: policy ? SAVED_NOTICE : null });
      if (!policy) {
        // Created: on to the list, which shows it in its place.
        guardLeaving(null);
        navigate(href.sla());
      }
    } catch (error) {
      dispatch({ type: 'saveFailed', error, form });
    }
  }, []);

  const backtest = useCallback(async () => {
    const { form, backtest: bt } = latest.current;
    if (!form) return;
    dispatch({ type: 'backtestStarted' });
    const days = Number(bt.days);
    try {
      const result = await api.backtestSlaPolicy(slaInput(form), bt.days.trim() !== '' && Number.isFinite(days) ? days : bt.days);
      dispatch({ type: 'backtestDone', result });
    } catch (error) {
      dispatch({ type: 'backtestFailed', error, form });
    }
  }, []);

  const deleted = useCallback(() => {
    dispatch({ type: 'dismiss', what: 'deleting' });
    guardLeaving(null);
    navigate(href.sla());
  }, []);

  /** The server's objections to the input named `key`. */
  const messages = (key: string) => slaMessages(state, key);

  return { state, dispatch, dirty, messages, save, backtest, deleted };
}
