import { conflict, validationFailed } from '../errors.ts';
import { needsTicketSentence, ticketActionsReached, type RunContext } from '../graph/index.ts';
import type { Execution } from '../executions/entity.ts';
import { ticketContext } from '../tickets/context.ts';
import type { TicketService } from '../tickets/service.ts';
import type { Workflow } from '../workflows/entity.ts';
import type { ExecutionDispatcher } from '../executions/dispatcher.ts';

/**
 * A run without a ticket that would reach an action needing one could only fail there: it is
 * refused (400, naming the nodes) before anything is created.
 */
function refuseTicketless(workflow: Workflow, context: RunContext): void {
  const needy = ticketActionsReached(workflow.graph, context);
  if (needy.length === 0) return;
  const message = `${needsTicketSentence(needy)}, and none was given: send the ticketId of a ticket of this workspace.`;
  throw validationFailed([{ path: 'ticketId', message }], `This run could only fail: ${message}`);
}

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
    const context: RunContext = { ...(ticket ? { ticket: ticketContext(ticket) } : {}), data: input.data };
    if (!ticket) refuseTicketless(workflow, context);
    if (triggeredBy === 'webhook' && !workflow.isActive) throw conflict('workflow_inactive', 'The workflow is inactive; activate it to accept webhooks.');
    return this.dispatcher.createAndStart({ workflow, triggeredBy, ticketId: ticket?.id ?? null, context });
  }
}
