// How a run's steps and a run as a whole read to people: a condition says what it found (true or
// false) rather than that it was "passed"; a dry run's actions say what they would do, since
// they did nothing; a run that ended before any action says that it took no action, rather
// than that it "completed". Pure; unit-tested in test/unit/console/run-words.test.ts.

import type { Execution } from '../api-types.ts';

export type StepKind = 'trigger' | 'condition' | 'action';

/** The words of a step's badge, and the status it stands for (for its colour). */
export type StepBadge = { text: string; tone: string };

const words = (s: string) => s.replace(/_/g, ' ');

/**
 * The badge of a step of kind `kind`. `simulated`: a dry run or a backtest, where an action
 * did not run but would (`actionType` names it, when known).
 */
export function stepBadge(step: { status: string; result?: unknown }, kind: StepKind | undefined, opts: { simulated?: boolean; actionType?: string } = {}): StepBadge {
  if (kind === 'condition' && step.status === 'passed' && typeof step.result === 'boolean') {
    return { text: String(step.result), tone: `outcome-${String(step.result)}` };
  }
  if (opts.simulated && kind === 'action') {
    if (step.status === 'completed') return { text: opts.actionType ? `would ${words(opts.actionType)}` : 'would run', tone: 'status-completed' };
    if (step.status === 'failed') return { text: 'would fail', tone: 'status-failed' };
  }
  return { text: words(step.status), tone: `status-${step.status.replace(/[^a-z_]/g, '')}` };
}

/** A step's kind as a dry run's answer shows it: actions carry their parameters, conditions a true or false. */
export function simulatedKind(step: { action?: unknown; result?: unknown }): StepKind | undefined {
  if (step.action !== undefined) return 'action';
  if (typeof step.result === 'boolean') return 'condition';
  return undefined;
}

/** Statuses a trigger's or a condition's step has; any other status is an action's. */
const NOT_ACTING = ['passed', 'not_reached'];

/** Whether a run ended without doing anything: completed, and no action among its steps (a condition said no first). */
export function tookNoAction(execution: Pick<Execution, 'status' | 'steps'>): boolean {
  return execution.status === 'completed' && execution.steps.every((s) => NOT_ACTING.includes(s.status));
}

/** A run's status for a list: "no action" for one that took none, else its status. */
export function runStatusText(execution: Pick<Execution, 'status' | 'steps'>): string {
  return tookNoAction(execution) ? 'no action' : words(execution.status);
}

/** "3 runs, 1 of which took no action" for a list of runs. */
export function runCount(executions: Array<Pick<Execution, 'status' | 'steps'>>, more = false): string {
  const idle = executions.filter(tookNoAction).length;
  const n = `${executions.length}${more ? '+' : ''}`;
  const runs = `${n} run${executions.length === 1 && !more ? '' : 's'}`;
  if (idle === 0) return runs;
  if (idle === executions.length) return `${runs}, ${executions.length === 1 ? 'which' : 'all of which'} took no action`;
  return `${runs}, ${idle} of which took no action`;
}
