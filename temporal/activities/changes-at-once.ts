import type { MikroORM } from '@mikro-orm/postgresql';
import type { Actor } from '../../src/actor.ts';
import { AppError } from '../../src/errors.ts';
import { RunBookkeeping, type StepRecord } from '../../src/executions/bookkeeping.ts';
import type { Logger } from '../../src/logger.ts';
import { createServices } from '../../src/services.ts';
import { isTicketChange, ticketChangeOf, type TicketChange } from '../../src/tickets/change.ts';
import { ticketContext } from '../../src/tickets/context.ts';
import { toRecord } from './steps.ts';
import type { ActionInput, BatchAnswer } from './types.ts';

/**
 * The usual batch of runActions, taken in one transaction: changes of the run's ticket (tags,
 * priority, status, assignee, resolution), none of them taken yet. The run begins (or, when
 * these are its last nodes, ends completed) in the same statement that checks it may go on;
 * the changes are applied in turn under one lock of the ticket, with each change's events, in
 * one write; the steps are recorded with them. One time stands for all of it: the ticket's
 * update, its events, the steps and the run's end.
 *
 * Null when the batch is not of that kind, when the run is not pending or running (cancelled,
 * or ended by an earlier attempt), when an earlier attempt already took one of the actions, or
 * when one of them breaks a rule: runActions then takes the actions one by one, each in a
 * transaction of its own, which answers those cases (the others take effect and the broken
 * one fails alone; a taken action answers what it recorded).
 */
export async function takeChangesAtOnce(
  deps: { orm: MikroORM; logger: Logger },
  input: { actions: ActionInput[]; finish?: boolean },
): Promise<BatchAnswer | null> {
  const [first] = input.actions;
  const ticketId = first?.ticketId;
  if (!ticketId || !input.actions.every((a) => isTicketChange(a.action) && a.ticketId === ticketId && a.executionId === first.executionId)) return null;
  const { executionId, workspaceId } = first;
  const nodeIds = input.actions.map((a) => a.nodeId);
  const actor: Actor = { type: 'workflow', workflowId: first.workflowId, executionId, chain: first.chain };
  const finishing = Boolean(input.finish);
  try {
    const changes: TicketChange[] = input.actions.map((a) => ticketChangeOf(a.action));
    return await deps.orm.em.fork().transactional(async (em): Promise<BatchAnswer | null> => {
      const run = new RunBookkeeping(em);
      const now = new Date();
      // A run that was pending has taken no action yet; one already running may have (a retry).
      const start = first.begin === true ? await run.begin(executionId, { em, endingAt: finishing ? now : undefined }) : null;
      const began = start?.fresh === true;
      if (!began) {
        // Cancelled or ended meanwhile, or an action taken by an earlier attempt: one by one answers that.
        const untouched = (!start || start.status === 'running') && !(await run.anyCompleted(executionId, nodeIds, em));
        if (!untouched) return null;
      }
      const tickets = await createServices(em, { logger: deps.logger }).tickets.updateInTurn(workspaceId, ticketId, changes, actor, { at: now });
      const steps = input.actions.map((a): StepRecord => ({ nodeId: a.nodeId, seq: a.seq, status: 'completed', result: undefined, startedAt: new Date(a.startedAt), completedAt: now }));
      await run.recordSteps(executionId, [...(first.steps ?? []).map(toRecord), ...steps], em);
      if (finishing && !began) await run.finish(executionId, 'completed', null, [], { em, at: now });
      return { outcomes: tickets.map((ticket) => ({ ticket: ticketContext(ticket), completedAt: now.toISOString() })), finished: finishing };
    });
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return null;
    throw err;
  }
}
