// An SLA policy's page (console/src/model/sla-page.ts): what the user does on the form and what
// the API answers, and what the user sees change.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../console/src/api-types.ts';
import { newSlaForm, slaInput, type SlaPolicy } from '../../../console/src/model/sla-form.ts';
import { attainmentText, initialSlaPage, isSlaDirty, SAVED_NOTICE, slaMessages, slaPageReducer, type SlaPageAction, type SlaPageState } from '../../../console/src/model/sla-page.ts';

const POLICY: SlaPolicy = {
  id: 'pol-1',
  name: 'Urgent within the hour',
  description: null,
  isActive: true,
  position: 0,
  match: null,
  calendarId: null,
  targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 3600, warnBeforeSeconds: 900 }],
  pauseOn: ['pending'],
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: '2026-03-01T00:00:00.000Z',
};

const run = (state: SlaPageState, ...actions: SlaPageAction[]) => actions.reduce(slaPageReducer, state);
const opened = () => run(initialSlaPage(null), { type: 'loaded', policy: POLICY });
const refused = (details: Array<{ path: string; message: string }>) => new ApiError(400, 'validation_failed', 'The policy is not valid.', details, null);

describe('the policy page', () => {
  it('shows a saved policy with nothing unsaved; an edit is unsaved until saved', () => {
    let state = opened();
    expect(state.form!.cells['first_reply.urgent'].due).toEqual({ amount: '1', unit: 'hours' });
    expect(isSlaDirty(state)).toBe(false);
    state = run(state, { type: 'setCell', metric: 'first_reply', priority: 'urgent', part: 'due', unit: 'days' });
    expect(isSlaDirty(state)).toBe(true);
    expect(slaInput(state.form!).targets[0].seconds).toBe(86_400);
    state = run(state, { type: 'saveStarted' }, { type: 'saved', policy: { ...POLICY, targets: [{ ...POLICY.targets[0], seconds: 86_400 }] }, notice: SAVED_NOTICE });
    expect(isSlaDirty(state)).toBe(false);
    expect(state.notice).toBe(SAVED_NOTICE);
  });

  it('edits every part of the form', () => {
    const state = run(
      initialSlaPage(newSlaForm()),
      { type: 'set', key: 'name', value: 'VIP' },
      { type: 'setActive', value: false },
      { type: 'togglePause', status: 'escalated', on: true },
      { type: 'togglePause', status: 'pending', on: false },
      { type: 'setMatch', match: { field: 'ticket.tags', operator: 'contains', value: 'vip' } },
      { type: 'setCell', metric: 'resolution', priority: 'low', part: 'due', amount: '3', unit: 'days' },
    );
    expect(slaInput(state.form!)).toMatchObject({ name: 'VIP', isActive: false, pauseOn: ['escalated'], match: { value: 'vip' }, targets: [{ metric: 'resolution', priority: 'low', seconds: 259_200 }] });
  });

  it('shows a refused save\'s objections beside their inputs, keeping the edits', () => {
    const edited = run(opened(), { type: 'setCell', metric: 'first_reply', priority: 'urgent', part: 'warn', amount: '2', unit: 'hours' });
    const state = run(edited, { type: 'saveStarted' }, { type: 'saveFailed', form: edited.form!, error: refused([{ path: 'targets[0].warnBeforeSeconds', message: 'warnBeforeSeconds must be less than seconds (3600).' }]) });
    expect(state.saving).toBe(false);
    expect(slaMessages(state, 'first_reply.urgent.warnBeforeSeconds')).toEqual(['warnBeforeSeconds must be less than seconds (3600).']);
    expect((state.error as ApiError).message).toBe('Not saved: The policy is not valid.');
    expect(isSlaDirty(state)).toBe(true);
  });

  it('runs a backtest: its result, or the objections to the policy tried and to the days', () => {
    let state = run(opened(), { type: 'setBacktestDays', days: '120' }, { type: 'backtestStarted' });
    expect(state.backtest.running).toBe(true);
    state = run(state, { type: 'backtestFailed', form: state.form!, error: refused([{ path: 'days', message: 'days must be an integer from 1 to 90.' }]) });
    expect(slaMessages(state, 'days')).toEqual(['days must be an integer from 1 to 90.']);
    const result = { tickets: 3, targets: [{ metric: 'first_reply' as const, priority: 'urgent' as const, met: 2, breached: 1, running: 0, attainment: 0.6667 }] };
    state = run(state, { type: 'setBacktestDays', days: '30' }, { type: 'backtestStarted' }, { type: 'backtestDone', result });
    expect(state.backtest).toMatchObject({ days: '30', running: false, result, error: null });
    expect(slaMessages(state, 'days')).toEqual([]);
    expect(attainmentText(0.6667)).toBe('66.7%');
    expect(attainmentText(null)).toBe('—');
  });

  it('asks before deleting, and a dismissed banner goes', () => {
    const state = run(opened(), { type: 'askDelete' });
    expect(state.deleting).toBe(true);
    expect(run(state, { type: 'dismiss', what: 'deleting' }).deleting).toBe(false);
    expect(run(opened(), { type: 'loadFailed', error: new Error('x') }, { type: 'dismiss', what: 'error' }).error).toBeNull();
  });
});
