import { conflict } from '../errors.ts';
import type { Execution } from '../executions/entity.ts';
import { ticketContext } from '../tickets/context.ts';
import type { TicketService } from '../tickets/service.ts';
import type { Workflow } from '../workflows/entity.ts';
import type { ExecutionDispatcher } from './dispatcher.ts';

/** Runs started by a request: the trigger endpoint (manual) and signed webhooks. */
export class TriggerService {
  private readonly tickets: TicketService;
  private readonly dispatcher: ExecutionDispatcher;

  constructor(deps: { tickets: TicketService; dispatcher: ExecutionDispatcher }) {
    this.tickets = deps.tickets;
    this.dispatcher = deps.dispatcher;
  }

  /**
   * Runs the workflow now with `data` (manual: the request's data, and a test run when the
   * workflow is inactive; webhook: the request body, and only while the workflow is active),
   * on a ticket of the workflow's workspace (404 otherwise) or none.
   */
  async run(workflow: Workflow, triggeredBy: 'manual' | 'webhook', input: { ticketId?: string; data: Record<string, unknown> }): Promise<Execution> {
    const ticket = input.ticketId !== undefined ? await this.tickets.get(workflow.workspace, input.ticketId) : null;
    if (triggeredBy === 'webhook' && !workflow.isActive) throw conflict('workflow_inactive', 'The workflow is inactive; activate it to accept webhooks.');
    return this.dispatcher.createAndStart({
      workflow,
      triggeredBy,
      ticketId: ticket?.id ?? null,
      context: { ...(ticket ? { ticket: ticketContext(ticket) } : {}), data: input.data },
    });
  }
}
