import { CancellationScope, patched, setCurrentDetails } from '@temporalio/workflow';
import type { StepInput } from '../../activities/types.ts';
import { TICKET_AFTER_WAITS } from '../patches.ts';
import { local } from './proxies.ts';
import type { RunState } from './state.ts';

/**
 * The run waits for something (a timer, a reply, a mail's delivery), shown as its current
 * details in the Web UI (branches may wait at once). A wait has a scope of its own, so that a
 * failure elsewhere can end it alone; sending a mail is waited for too, but never cut short
 * that way (`cutShortOnFailure: false`): once under way it ends as it ends.
 */
export async function waiting<T>(run: RunState, what: string, wait: (summary: string) => Promise<T>, opts: { cutShortOnFailure?: boolean } = {}): Promise<T> {
  const scope = opts.cutShortOnFailure === false ? null : new CancellationScope();
  run.waits.set(what, scope);
  setCurrentDetails(`Waiting: ${[...run.waits.keys()].join('; ')}`);
  try {
    return await (scope ? scope.run(() => wait(what)) : wait(what));
  } finally {
    run.waits.delete(what);
    setCurrentDetails(run.waits.size ? `Waiting: ${[...run.waits.keys()].join('; ')}` : '');
  }
}

/** After a wait or an outbound request: the step is recorded and the run goes on with the ticket as it is now. */
export async function resumed(run: RunState, step: StepInput): Promise<void> {
  const { input } = run;
  if (!input.ticketId || !patched(TICKET_AFTER_WAITS)) {
    run.record(step);
    return;
  }
  const { ticket } = await local.resumeRun({ executionId: run.executionId, workspaceId: input.workspaceId, ticketId: input.ticketId, steps: [...run.take(), step] });
  run.ticketIs(ticket);
}
