import type { EntityManager } from '@mikro-orm/postgresql';
import { ExecutionService } from './executions/service.ts';
import type { WorkflowEngine } from './executions/run-input.ts';
import type { Logger } from './logger.ts';
import { MessageService } from './messages/service.ts';
import { TicketService } from './tickets/service.ts';
import { WorkflowService } from './workflows/service.ts';
import { WorkspaceService } from './workspaces/service.ts';
import type { ScheduleSync } from './workflows/schedules.ts';

/** The services of one unit of work (a request, a CLI command, an activity), sharing one EntityManager fork. */
export type Services = {
  em: EntityManager;
  workspaces: WorkspaceService;
  tickets: TicketService;
  messages: MessageService;
  executions: ExecutionService;
  workflows: WorkflowService;
};

export type ServiceDeps = { engine?: WorkflowEngine; schedules?: ScheduleSync; logger?: Logger };

export function createServices(em: EntityManager, deps: ServiceDeps = {}): Services {
  const workspaces = new WorkspaceService(em);
  const tickets = new TicketService(em, workspaces);
  const executions = new ExecutionService(em, deps.engine, deps.logger);
  return {
    em,
    workspaces,
    tickets,
    messages: new MessageService(em),
    executions,
    workflows: new WorkflowService(em, executions, tickets, { schedules: deps.schedules, logger: deps.logger }),
  };
}
