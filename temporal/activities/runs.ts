import { cancelApprovalsOf } from '../../src/approvals/runs.ts';
import { AppError } from '../../src/errors.ts';
import { RunBookkeeping } from '../../src/executions/bookkeeping.ts';
import { OutboxEvent } from '../../src/events/entity.ts';
import { ticketContext } from '../../src/tickets/context.ts';
import { readTicket } from '../../src/tickets/store.ts';
import type { ActivityDeps } from './deps.ts';
import { toRecord } from './steps.ts';
import type { Activities } from './types.ts';

type RunActivities = Pick<
  Activities,
  'beginRun' | 'recordSteps' | 'resumeRun' | 'finishRun' | 'customerRepliedBetween' | 'beginExecution' | 'recordStep' | 'finishExecution'
>;

/**
 * What a run writes about itself (src/executions/bookkeeping.ts): it begins (RunBookkeeping.begin),
 * records its steps, reads its ticket again after a wait, and ends (RunBookkeeping.finish).
 */
export function createRunActivities(deps: Pick<ActivityDeps, 'orm'>): RunActivities {
  const bookkeeping = () => new RunBookkeeping(deps.orm.em.fork());
  return {
    async beginRun(input) {
      return (await bookkeeping().begin(input.executionId, { steps: input.steps.map(toRecord) })).status;
    },

    async recordSteps(input) {
      await bookkeeping().recordSteps(input.executionId, input.steps.map(toRecord));
    },

    /**
     * A run going on after a wait (or an outbound request): records the steps walked since its
     * last write and reads the ticket as it is now, so that what comes next decides on the
     * present. Null when the ticket is gone.
     */
    async resumeRun(input) {
      const em = deps.orm.em.fork();
      await new RunBookkeeping(em).recordSteps(input.executionId, input.steps.map(toRecord));
      try {
        return { ticket: ticketContext(await readTicket(em, input.workspaceId, input.ticketId)) };
      } catch (err) {
        if (err instanceof AppError && err.status === 404) return { ticket: null };
        throw err;
      }
    },

    /** The run's end; one that did not complete takes its pending approvals with it (cancelled). */
    async finishRun(input) {
      const steps = input.steps.map(toRecord);
      if (input.status === 'completed') return bookkeeping().finish(input.executionId, input.status, input.error, steps);
      await deps.orm.em.fork().transactional(async (em) => {
        const at = new Date();
        await new RunBookkeeping(em).finish(input.executionId, input.status, input.error, steps, { em, at });
        await cancelApprovalsOf(em, input.executionId, at);
      });
    },

    /** Whether the ticket's customer replied (an emitted TICKET_MESSAGE_ADDED) between the two instants, inclusive. */
    async customerRepliedBetween(input) {
      const count = await deps.orm.em.fork().count(OutboxEvent, {
        ticketId: input.ticketId,
        type: 'message_received',
        createdAt: { $gte: new Date(input.from), $lte: new Date(input.to) },
      });
      return count > 0;
    },

    // runGraph (the first version of the run workflow) records its steps one by one.
    async beginExecution(executionId) {
      return (await bookkeeping().begin(executionId)).status;
    },
    async recordStep(executionId, step) {
      await bookkeeping().recordSteps(executionId, [toRecord(step)]);
    },
    async finishExecution(executionId, status, error) {
      await bookkeeping().finish(executionId, status, error);
    },
  };
}
