import type { EntityManager } from '@mikro-orm/postgresql';
import { calendarsOfGraph, idleCutoff } from '../calendars/store.ts';
import { validationFailed } from '../errors.ts';
import { EVENT_TYPES, OutboxEvent, type EventType } from '../events/entity.ts';
import type { CalendarsById, RunContext, TriggerType, WorkflowGraph } from '../graph/index.ts';
import { ticketContext, type TicketContext } from '../tickets/context.ts';
import { Ticket } from '../tickets/entity.ts';
import { readTicket } from '../tickets/store.ts';
import { notAssignable } from '../tickets/assignees.ts';
import { contextOf } from '../triggers/event-delivery.ts';
import { ticketFilterWhere } from '../triggers/ticks.ts';
import { ticketFilterOf } from '../workflows/schedule-spec.ts';
import { hasMailbox } from '../mail/store.ts';
import { Member } from '../workspaces/entity.ts';
import { reopensOnCustomerReplyIn } from '../workspaces/settings.ts';
import { BACKTEST_WINDOW_DAYS, type BacktestInput, type DryRunInput } from './schema.ts';
import { simulateRun, type SimulatedStep, type Simulation } from './simulate.ts';

/** What is tried: a saved workflow or an unsaved graph. */
export type Rehearsed = { workspace: string; triggerType: TriggerType; graph: WorkflowGraph };

export type BacktestResult = {
  eventsExamined: number;
  matched: number;
  actionsWouldRun: Record<string, number>;
  sample: Array<{ eventId: string | null; ticketId: string | null; at: string; steps: SimulatedStep[] }>;
  assumptions: string[];
};

/** A run the backtest replays: a recorded event, or a ticket a schedule's filter selects. */
type Replayed = { eventId: string | null; ticketId: string | null; at: Date; ticket: TicketContext | null; context: RunContext };

const PAGE_SIZE = 100;
const SAMPLE_SIZE = 20;
const DEFAULT_LIMIT = 200;
/** Triggers whose runs get `data` in their context ({} unless given). */
const DATA_TRIGGERS: ReadonlySet<TriggerType> = new Set(['manual', 'scheduled', 'webhook']);

/**
 * Tries a workflow without running it (docs/automations.md, "Trying a workflow"): a dry run on
 * one ticket and event, or a backtest over the workspace's recorded events. Everything happens
 * in a read-only transaction: nothing is written, sent or started.
 */
export class DryRunService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /** Walks the graph as if it were `input.at` (default: now); the answer says which instant that was. */
  async dryRun(target: Rehearsed, input: DryRunInput, clock = new Date()): Promise<Simulation & { at: string }> {
    const now = input.at ?? clock;
    return this.readOnly(async (em) => {
      const ticket = input.ticketId !== undefined ? ticketContext(await readTicket(em, target.workspace, input.ticketId)) : null;
      const context: RunContext = {
        ...(ticket ? { ticket } : {}),
        ...(input.message ? { message: input.message } : {}),
        ...(input.changes ? { changes: input.changes as RunContext['changes'] } : {}),
        ...(input.tag !== undefined ? { tag: input.tag } : {}),
        ...(input.sla ? { sla: input.sla } : {}),
        ...(input.data !== undefined || DATA_TRIGGERS.has(target.triggerType) ? { data: input.data ?? {} } : {}),
      };
      const members = await assignableMembers(em, target);
      const reopensOnReply = await reopensOnCustomerReplyIn(em, target.workspace);
      const mails = await hasMailbox(em, target.workspace);
      const calendars = await calendarsOfGraph(em, target.workspace, target.graph);
      const simulation = await simulateRun(target.graph, context, { ticket, assumeReply: input.assumeReply ?? false, approvals: input.approvals, reopensOnReply, now, calendars, checkAssignee: assigneeCheck(members, target.workspace), mails });
      return { at: now.toISOString(), ...simulation };
    });
  }

  /**
   * Replays the graph over the workspace's events of its trigger type in [since, until), oldest
   * first, at most `limit`; a scheduled workflow with a ticket filter over the tickets it selects
   * now. Reads keyset pages and keeps counts and a small sample only, whatever the window.
   */
  async backtest(target: Rehearsed, input: BacktestInput, now = new Date()): Promise<BacktestResult> {
    const until = input.until ?? now;
    const since = input.since ?? new Date(until.getTime() - BACKTEST_WINDOW_DAYS * 86_400_000);
    if (since >= until) throw validationFailed([{ path: 'since', message: 'since must be before until.' }]);
    const limit = input.limit ?? DEFAULT_LIMIT;
    return this.readOnly(async (em) => {
      const members = await assignableMembers(em, target);
      const reopensOnReply = await reopensOnCustomerReplyIn(em, target.workspace);
      const result: BacktestResult = { eventsExamined: 0, matched: 0, actionsWouldRun: {}, sample: [], assumptions: backtestAssumptions(target, input.assumeReply ?? false, input.approvals ?? 'approve') };
      const calendars = await calendarsOfGraph(em, target.workspace, target.graph);
      for await (const run of replayed(em, target, { since, until, limit, now, calendars })) {
        const { steps } = await simulateRun(target.graph, run.context, {
          calendars,
          ticket: run.ticket,
          assumeReply: input.assumeReply ?? false,
          approvals: input.approvals,
          reopensOnReply,
          now: run.at,
          checkAssignee: assigneeCheck(members, target.workspace),
        });
        result.eventsExamined += 1;
        const actions = steps.filter((s) => s.action !== undefined);
        if (actions.length === 0) continue;
        result.matched += 1;
        for (const step of actions) {
          if (step.status === 'completed') result.actionsWouldRun[step.action!.actionType] = (result.actionsWouldRun[step.action!.actionType] ?? 0) + 1;
        }
        if (result.sample.length < SAMPLE_SIZE) result.sample.push({ eventId: run.eventId, ticketId: run.ticketId, at: run.at.toISOString(), steps });
      }
      return result;
    });
  }

  private readOnly<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.em.transactional(work, { readOnly: true });
  }
}

/** What every replayed run takes for granted (docs/automations.md, "Trying a workflow"). */
function backtestAssumptions(target: Rehearsed, assumeReply: boolean, approvals: 'approve' | 'reject'): string[] {
  const followed = new Set(target.graph.edges.map((e) => e.source));
  const waits = target.graph.nodes.filter((n) => n.type === 'action' && ['delay', 'wait_for_reply', 'request_approval', 'http_request'].includes(n.data.actionType) && followed.has(n.id));
  return [
    target.triggerType === 'scheduled'
      ? 'Each run is replayed on a ticket the schedule\'s filter selects now, as it is now.'
      : 'Each event is replayed on the ticket as the event recorded it, not as it is now.',
    ...(waits.length > 0 ? ['After a wait or an outbound request a run reads the ticket afresh; here it is taken as unchanged by anyone else meanwhile.'] : []),
    ...(target.graph.nodes.some((n) => n.type === 'action' && n.data.actionType === 'wait_for_reply')
      ? [assumeReply ? 'Every wait_for_reply is taken as answered by the customer in time (a reply reopens a pending or solved ticket where the workspace says so).' : 'Every wait_for_reply is taken as not answered.']
      : []),
    ...(target.graph.nodes.some((n) => n.type === 'action' && n.data.actionType === 'request_approval')
      ? [`Every request_approval is taken as ${approvals === 'approve' ? 'approved' : 'rejected'} at once.`]
      : []),
  ];
}

/** The people tickets may be assigned to, read once when the graph assigns at all. */
async function assignableMembers(em: EntityManager, target: Rehearsed): Promise<Set<string>> {
  if (!target.graph.nodes.some((n) => n.type === 'action' && n.data.actionType === 'assign_ticket')) return new Set();
  const members = await em.find(Member, { workspace: target.workspace }, { fields: ['userId'] });
  return new Set(members.map((m) => m.userId));
}

async function* replayed(em: EntityManager, target: Rehearsed, window: { since: Date; until: Date; limit: number; now: Date; calendars: CalendarsById }): AsyncGenerator<Replayed> {
  if ((EVENT_TYPES as readonly string[]).includes(target.triggerType)) {
    yield* recordedEvents(em, target.workspace, target.triggerType as EventType, window);
  } else if (target.triggerType === 'scheduled') {
    const filter = ticketFilterOf(target);
    if (!filter) {
      yield { eventId: null, ticketId: null, at: window.now, ticket: null, context: { data: {} } };
      return;
    }
    let cursor: string | null = null;
    for (let left = window.limit; left > 0; ) {
      const where = ticketFilterWhere(target.workspace, filter, window.now, idleCutoff(filter, window.now, window.calendars));
      if (cursor) where.id = { $gt: cursor };
      const tickets: Ticket[] = await em.find(Ticket, where, { orderBy: { id: 'asc' }, limit: Math.min(PAGE_SIZE, left) });
      em.clear();
      for (const t of tickets) {
        const ticket = ticketContext(t);
        yield { eventId: null, ticketId: t.id, at: window.now, ticket, context: { ticket, data: {} } };
      }
      left -= tickets.length;
      if (tickets.length < PAGE_SIZE) return;
      cursor = tickets[tickets.length - 1].id;
    }
  }
  // manual and webhook runs are started by requests, not by recorded events: nothing to replay.
}

async function* recordedEvents(em: EntityManager, workspaceId: string, type: EventType, window: { since: Date; until: Date; limit: number }): AsyncGenerator<Replayed> {
  let after: { createdAt: Date; id: string } | null = null;
  for (let left = window.limit; left > 0; ) {
    const events: Array<Pick<OutboxEvent, 'id' | 'ticketId' | 'payload' | 'createdAt'>> = await em.find(
      OutboxEvent,
      {
        workspace: workspaceId,
        type,
        createdAt: { $gte: window.since, $lt: window.until },
        ...(after ? { $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, id: { $gt: after.id } }] } : {}),
      },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit: Math.min(PAGE_SIZE, left), fields: ['id', 'ticketId', 'payload', 'createdAt'] },
    );
    em.clear();
    for (const event of events) {
      const context = contextOf(event);
      yield { eventId: event.id, ticketId: event.ticketId ?? null, at: event.createdAt, ticket: (context.ticket as TicketContext | undefined) ?? null, context };
    }
    left -= events.length;
    if (events.length < PAGE_SIZE) return;
    const last = events[events.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** The run's refusal of an assignee who is not a member or admin of the workspace, from the members read once. */
function assigneeCheck(members: Set<string>, workspaceId: string): (assignee: string) => void {
  return (assignee) => {
    if (!members.has(assignee)) throw notAssignable(workspaceId, assignee);
  };
}
