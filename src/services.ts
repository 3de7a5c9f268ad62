import type { EntityManager } from '@mikro-orm/postgresql';
import { checkApprovers } from './approvals/approvers.ts';
import { ApprovalService } from './approvals/service.ts';
import { AiSettingsService } from './ai/settings.ts';
import { takeUpWaitingTickets } from './ai/wakeups.ts';
import { draftDecisions } from './ai/drafts.ts';
import { AiOwner } from './ai/owner.ts';
import { CalendarService } from './calendars/service.ts';
import { activePoliciesUsing, SlaPolicyService } from './sla/service.ts';
import { passRequests, requestPassIfCounted } from './sla/passes.ts';
import type { AfterCommit } from './common/after-commit.ts';
import { DryRunService } from './dry-runs/service.ts';
import type { WorkflowEngine } from './executions/engine.ts';
import { ExecutionService } from './executions/service.ts';
import { IdempotencyService } from './idempotency/service.ts';
import { KnowledgeService } from './knowledge/service.ts';
import type { MailDeliveryStarter } from './mail/outbound.ts';
import { ReplyService } from './mail/replies.ts';
import type { Logger } from './logger.ts';
import type { SecretBox } from './mail/secrets.ts';
import { MessageService, initialMessage } from './messages/service.ts';
import { NoteService } from './notes/service.ts';
import { MemberAssignees } from './tickets/assignees.ts';
import { TicketService } from './tickets/service.ts';
import { ExecutionDispatcher } from './executions/dispatcher.ts';
import { TriggerService } from './triggers/service.ts';
import type { ScheduleSync } from './workflows/schedule-spec.ts';
import { WorkflowService } from './workflows/service.ts';
import { WorkspaceService } from './workspaces/service.ts';

/** The services of one unit of work (a request, a CLI command, an activity), sharing one EntityManager fork. */
export type Services = ReturnType<typeof servicesOn> & {
  /**
   * Runs `work` with services whose writes all join one transaction, so that they commit or
   * roll back together with whatever else `work` writes (an idempotency key). What must not
   * happen before the commit (starting a run on the workflow engine) waits until it.
   */
  inTransaction<T>(work: (services: Services) => Promise<T>): Promise<T>;
};

export type ServiceDeps = {
  engine?: WorkflowEngine;
  schedules?: ScheduleSync;
  logger?: Logger;
  /** Starts the delivery workflow of an agent's reply (the mail worker does it when this is absent or fails). */
  mailDelivery?: MailDeliveryStarter;
  /** Set inside inTransaction: defers effects outside the database until the commit. */
  afterCommit?: AfterCommit;
  /** Seals secrets given through the API (the AI owner's model key). */
  secrets?: () => SecretBox;
  /** DESKFLOW_HTTP_ALLOW: private hosts or CIDRs outgoing requests may reach (the AI owner's model). */
  httpAllow?: string[];
};

export function createServices(em: EntityManager, deps: ServiceDeps = {}): Services {
  return { ...servicesOn(em, deps), inTransaction: (work) => inTransaction(em, deps, work) };
}

function servicesOn(em: EntityManager, deps: ServiceDeps) {
  const tickets = new TicketService(em, { assignees: new MemberAssignees(em), initialMessage: initialMessage });
  const executions = new ExecutionService(em, deps);
  const dispatcher = new ExecutionDispatcher(em, deps);
  // Calendars know of SLA policies only through what is wired here (src/sla depends on src/calendars).
  const calendars = new CalendarService(em, { users: [{ one: 'an active SLA policy', many: 'active SLA policies', find: activePoliciesUsing, changed: requestPassIfCounted }] });
  return {
    em,
    calendars,
    slaPolicies: new SlaPolicyService(em, { passes: passRequests }),
    workspaces: new WorkspaceService(em),
    tickets,
    messages: new MessageService(em),
    notes: new NoteService(em),
    workflows: new WorkflowService(em, { runs: executions, calendars, approvers: checkApprovers, schedules: deps.schedules, logger: deps.logger }),
    executions,
    dispatcher,
    triggers: new TriggerService({ tickets, dispatcher }),
    idempotency: new IdempotencyService(em),
    dryRuns: new DryRunService(em),
    replies: new ReplyService(em, { starter: deps.mailDelivery, afterCommit: deps.afterCommit, logger: deps.logger }),
    approvals: new ApprovalService(em, { engine: deps.engine, afterCommit: deps.afterCommit, logger: deps.logger, drafts: draftDecisions({ mailDelivery: deps.mailDelivery, logger: deps.logger }) }),
    knowledge: new KnowledgeService(em),
    ai: new AiSettingsService(em, { secrets: deps.secrets, httpAllow: deps.httpAllow, onTurnedOn: takeUpWaitingTickets }),
    owner: new AiOwner({ fork: () => em.fork(), logger: deps.logger, secrets: deps.secrets, httpAllow: deps.httpAllow ?? [], mailDelivery: deps.mailDelivery }),
  };
}

async function inTransaction<T>(em: EntityManager, deps: ServiceDeps, work: (services: Services) => Promise<T>): Promise<T> {
  // Nested: the outermost transaction's commit is the one that counts.
  if (deps.afterCommit) return em.transactional((tx) => work(createServices(tx, deps)));
  const deferred: Array<(em: EntityManager) => Promise<void>> = [];
  const result = await em.transactional((tx) => work(createServices(tx, { ...deps, afterCommit: (task) => deferred.push(task) })));
  // The transaction's own EntityManager is done with; these run on the one it was opened from.
  for (const task of deferred) await task(em);
  return result;
}
