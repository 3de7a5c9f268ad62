// An SLA policy's page: the form being edited (console/src/model/sla-form.ts), the policy as last
// saved, where a save or a deletion stands, and the backtest of the form as it is. The reducer
// is pure: it takes what the user did and what the API answered (console/src/pages/sla/
// useSlaPolicyPage.ts makes the calls). Unit-tested in test/unit/console/sla-page.test.ts.

import { ApiError, notSaved } from '../api-types.ts';
import { cellKey, placeSlaIssues, slaForm, type PausableStatus, type SlaForm, type SlaIssues, type SlaMetric, type SlaPolicy, type SlaPriority, type Unit } from './sla-form.ts';

export type SlaBacktestTarget = { metric: SlaMetric; priority: SlaPriority; met: number; breached: number; running: number; attainment: number | null };
export type SlaBacktest = { tickets: number; targets: SlaBacktestTarget[] };

export type SlaPageState = {
  /** As the server last answered; null for a policy not created yet. */
  policy: SlaPolicy | null;
  /** Null until the policy is read. */
  form: SlaForm | null;
  /** The form as last saved (as JSON): the edits are compared with it. */
  baseline: string;
  /** The server's objections to the last save or backtest, by the input they are about. */
  issues: SlaIssues | null;
  error: unknown;
  notice: string | null;
  saving: boolean;
  deleting: boolean;
  backtest: { days: string; running: boolean; result: SlaBacktest | null; error: unknown };
};

/** What the user changes on the form. */
export type SlaEdit =
  | { type: 'set'; key: 'name' | 'description' | 'calendarId'; value: string }
  | { type: 'setActive'; value: boolean }
  | { type: 'togglePause'; status: PausableStatus; on: boolean }
  | { type: 'setMatch'; match: Record<string, unknown> | null }
  | { type: 'setCell'; metric: SlaMetric; priority: SlaPriority; part: 'due' | 'warn'; amount?: string; unit?: Unit };

export type SlaPageAction =
  | SlaEdit
  | { type: 'loaded'; policy: SlaPolicy }
  | { type: 'loadFailed'; error: unknown }
  | { type: 'saveStarted' }
  | { type: 'saved'; policy: SlaPolicy; notice: string | null }
  /** `form` is the one that was sent, which the server's objections are placed on. */
  | { type: 'saveFailed'; error: unknown; form: SlaForm }
  | { type: 'askDelete' }
  | { type: 'dismiss'; what: 'error' | 'notice' | 'deleting' }
  | { type: 'setBacktestDays'; days: string }
  | { type: 'backtestStarted' }
  | { type: 'backtestDone'; result: SlaBacktest }
  | { type: 'backtestFailed'; error: unknown; form: SlaForm };

export const SAVED_NOTICE = 'Saved. Tickets not yet solved or closed follow the change within seconds, measured from when their clocks started.';

export function initialSlaPage(form: SlaForm | null): SlaPageState {
  return {
    policy: null,
    form,
    baseline: form ? JSON.stringify(form) : '',
    issues: null,
    error: null,
    notice: null,
    saving: false,
    deleting: false,
    backtest: { days: '30', running: false, result: null, error: null },
  };
}

const asSaved = (policy: SlaPolicy) => {
  const form = slaForm(policy);
  return { policy, form, baseline: JSON.stringify(form) };
};

export function slaPageReducer(state: SlaPageState, action: SlaPageAction): SlaPageState {
  switch (action.type) {
    case 'loaded':
      return { ...state, ...asSaved(action.policy) };
    case 'loadFailed':
      return { ...state, error: action.error };
    case 'saveStarted':
      return { ...state, saving: true, error: null, notice: null };
    case 'saved':
      return { ...state, ...asSaved(action.policy), issues: null, saving: false, notice: action.notice };
    case 'saveFailed':
      return { ...state, saving: false, ...refusal(action.error, action.form) };
    case 'askDelete':
      return { ...state, deleting: true };
    case 'dismiss':
      return { ...state, [action.what]: action.what === 'deleting' ? false : null };
    case 'setBacktestDays':
      return { ...state, backtest: { ...state.backtest, days: action.days } };
    case 'backtestStarted':
      return { ...state, backtest: { ...state.backtest, running: true, error: null } };
    case 'backtestDone':
      return { ...state, issues: null, backtest: { ...state.backtest, running: false, result: action.result, error: null } };
    case 'backtestFailed': {
      const { error, issues } = refusal(action.error, action.form);
      return { ...state, issues: issues ?? state.issues, backtest: { ...state.backtest, running: false, result: null, error } };
    }
    default:
      return state.form ? { ...state, form: editSlaForm(state.form, action) } : state;
  }
}

/** A refused save or backtest: the server's objections go beside the inputs they name, the rest in the banner. */
function refusal(error: unknown, form: SlaForm): { error: unknown; issues?: SlaIssues } {
  if (!(error instanceof ApiError && error.code === 'validation_failed')) return { error };
  const issues = placeSlaIssues(error.details, form);
  return { issues, error: notSaved(error, issues.general) };
}

export function editSlaForm(form: SlaForm, edit: SlaEdit): SlaForm {
  switch (edit.type) {
    case 'set':
      return { ...form, [edit.key]: edit.value };
    case 'setActive':
      return { ...form, isActive: edit.value };
    case 'togglePause':
      return { ...form, pauseOn: edit.on ? [...form.pauseOn.filter((s) => s !== edit.status), edit.status] : form.pauseOn.filter((s) => s !== edit.status) };
    case 'setMatch':
      return { ...form, match: edit.match };
    case 'setCell': {
      const key = cellKey(edit.metric, edit.priority);
      const cell = form.cells[key];
      const part = { ...cell[edit.part], ...(edit.amount !== undefined ? { amount: edit.amount } : {}), ...(edit.unit !== undefined ? { unit: edit.unit } : {}) };
      return { ...form, cells: { ...form.cells, [key]: { ...cell, [edit.part]: part } } };
    }
  }
}

export function isSlaDirty(state: SlaPageState): boolean {
  return state.form !== null && JSON.stringify(state.form) !== state.baseline;
}

/** The server's objections to the input named `key` (`name`, `first_reply.urgent.warnBeforeSeconds`, `days`…). */
export function slaMessages(state: SlaPageState, key: string): string[] {
  return state.issues?.fields.get(key) ?? [];
}

/** `0.75` → `75%`; null (nothing decided yet) → `—`. */
export function attainmentText(attainment: number | null): string {
  return attainment === null ? '—' : `${Math.round(attainment * 1000) / 10}%`;
}
