import { replySubject } from '../mail/compose.ts';
import type { Actor } from '../actor.ts';
import { AppError } from '../errors.ts';
import {
  addOpenTime,
  businessSchedule,
  CalendarError,
  evaluateCondition,
  formatDuration,
  GraphWalker,
  isBranchingNode,
  nodeById,
  parseIsoInstant,
  renderAction,
  walk,
  type ActionData,
  type CalendarsById,
  type GraphNode,
  type RunContext,
  type WorkflowGraph,
} from '../graph/index.ts';
import { applyTicketChange, ticketChangeOf, type FieldChange } from '../tickets/change.ts';
import type { TicketContext } from '../tickets/context.ts';
import { reopensOnCustomerReply } from '../tickets/policy.ts';
import { AI_ASSIGNEE, type TicketStatus } from '../tickets/values.ts';

/** A node the simulated run visited: the same statuses as an execution's steps. */
export type SimulatedStep = {
  nodeId: string;
  status: 'passed' | 'completed' | 'failed';
  /** A condition's outcome, or the branch a wait_for_reply takes. */
  result?: boolean;
  /** An action's parameters with their templates filled. */
  action?: ActionData;
  /** How long a delay would wait, or a wait_for_reply at the longest (its timeout), in seconds of the clock. */
  waitSeconds?: number;
  /** When a delay or wait_for_reply would end (wait_for_reply: at the latest), ISO 8601. */
  until?: string;
  error?: string;
};

/** A message or request the run would send. */
export type Outbound =
  | { nodeId: string; type: 'send_reply'; to: string; subject: string; delivery: 'mail' | 'not_configured'; body: string; bodyHtml?: string }
  | { nodeId: string; type: 'http_request'; method: string; url: string; headers?: Record<string, string>; body?: unknown };

/**
 * `assumptions`: what the simulation takes for granted where a real run would look at the world
 * again (after each wait and outbound request a run reads its ticket afresh), one sentence each.
 */
export type Simulation = { steps: SimulatedStep[]; changes: Record<string, FieldChange>; outbound: Outbound[]; assumptions: string[] };

export type SimulationOptions = {
  /** The ticket of the run, as its context shows it; null for a run without one. */
  ticket: TicketContext | null;
  /** The branch every wait_for_reply takes. */
  assumeReply: boolean;
  /** Whether the workspace reopens a pending or solved ticket on a customer reply (docs/contract.md §3). */
  reopensOnReply: boolean;
  /**
   * When the run would begin: conditions read it as `now` until a wait moves a branch's clock on
   * (a condition after a delay of an hour reads an hour later); changed tickets get the time of
   * their change as updatedAt.
   */
  now: Date;
  /** The calendars the graph names (business-hours conditions and waits). */
  calendars: CalendarsById;
  /** Whether a person may be assigned tickets of the workspace (members and admins). */
  isAssignable: (assignee: string) => boolean;
  /** Whether the workspace has a mailbox: replies would be mailed to the customer (docs/contract.md §10). */
  mails?: boolean;
};

/** Stops the walk at a failing node, as a real run stops at its first failed action. */
class StepFailed extends Error {}

/**
 * Walks `graph` as a run would (the same walker and order), doing nothing: conditions are
 * evaluated, actions rendered and applied to a copy of the ticket, replies and requests listed,
 * waits reported with their duration. A node that would fail (a ticket action without a ticket,
 * an assignee who is not a member, a tag that renders blank) ends the walk with a `failed` step.
 */
export async function simulateRun(graph: WorkflowGraph, context: RunContext, opts: SimulationOptions): Promise<Simulation> {
  const nodes = nodeById(graph);
  const steps: SimulatedStep[] = [];
  const outbound: Outbound[] = [];
  const assumptions: string[] = [];
  const changes: Record<string, FieldChange> = {};
  let ticket = opts.ticket;
  let current: RunContext = context;
  // Not a real actor: a change made by a run is attributed to its workflow, which decides the resolution type.
  const actor: Actor = { type: 'workflow', workflowId: '', executionId: '', chain: [] };

  const fail = (step: SimulatedStep, err: unknown): never => {
    step.status = 'failed';
    step.error = err instanceof Error ? err.message : String(err);
    throw new StepFailed(step.error);
  };

  // Each node happens at a time of its own: when the last of the branches that lead to it got
  // there. Waits move it on; everything else takes no time.
  const finishedAt = new Map<string, number>();
  const outcomes = new Map<string, boolean | undefined>();
  let clock = opts.now.getTime();
  const iso = (t: number) => new Date(t).toISOString();
  function startOf(node: GraphNode): number {
    let start: number | undefined;
    for (const e of graph.edges) {
      const end = finishedAt.get(e.source);
      if (e.target !== node.id || end === undefined) continue;
      const source = nodes.get(e.source)!;
      const taken = !isBranchingNode(source) || (e.label === 'false' ? outcomes.get(e.source) === false : outcomes.get(e.source) === true);
      if (taken) start = Math.max(start ?? end, end);
    }
    return start ?? opts.now.getTime();
  }

  /** The end of a wait of `seconds` of open time of a calendar, from `start`. */
  function openTimeAfter(calendarId: string, start: number, seconds: number): number {
    const calendar = opts.calendars[calendarId.toLowerCase()];
    if (!calendar) throw new CalendarError(`There is no calendar "${calendarId}" in this workspace.`);
    try {
      return addOpenTime(businessSchedule(calendar), start, Math.round(seconds * 1000));
    } catch (err) {
      if (err instanceof CalendarError) throw new CalendarError(`A wait of ${formatDuration(seconds * 1000)} of open time cannot end: ${err.message}.`);
      throw err;
    }
  }

  function visit(node: GraphNode): boolean | undefined {
    clock = startOf(node);
    const outcome = visitAt(node);
    outcomes.set(node.id, outcome);
    if (!finishedAt.has(node.id)) finishedAt.set(node.id, clock);
    return outcome;
  }

  function visitAt(node: GraphNode): boolean | undefined {
    if (node.type === 'trigger') {
      steps.push({ nodeId: node.id, status: 'passed' });
      return undefined;
    }
    if (node.type === 'condition') {
      const step: SimulatedStep = { nodeId: node.id, status: 'passed' };
      steps.push(step);
      try {
        step.result = evaluateCondition(node.data, current, { now: clock, calendars: opts.calendars });
      } catch (err) {
        fail(step, err);
      }
      return step.result;
    }
    const action = renderAction(node.data, current);
    const step: SimulatedStep = { nodeId: node.id, status: 'completed', action };
    steps.push(step);
    const waitUntil = (until: number, finished = until) => {
      step.until = iso(until);
      finishedAt.set(node.id, finished);
    };
    switch (action.actionType) {
      case 'delay': {
        if (action.businessSeconds !== undefined) {
          let until = clock;
          try {
            until = openTimeAfter(action.calendarId, clock, action.businessSeconds);
          } catch (err) {
            fail(step, err);
          }
          step.waitSeconds = (until - clock) / 1000;
          waitUntil(until);
        } else if (action.seconds !== undefined) {
          step.waitSeconds = action.seconds;
          waitUntil(clock + Math.round(action.seconds * 1000));
        } else {
          // An instant in the past does not wait.
          const until = Math.max(clock, parseIsoInstant(action.until ?? '') ?? 0);
          step.waitSeconds = Math.ceil((until - clock) / 1000);
          waitUntil(until);
        }
        assumeUnchanged(node.id, 'the delay');
        return undefined;
      }
      case 'wait_for_reply': {
        let until = clock + action.timeoutSeconds * 1000;
        if (action.calendarId !== undefined) {
          try {
            until = openTimeAfter(action.calendarId, clock, action.timeoutSeconds);
          } catch (err) {
            fail(step, err);
          }
        }
        step.waitSeconds = (until - clock) / 1000;
        step.result = opts.assumeReply;
        // An assumed reply comes at once; without one the branch goes on at the deadline.
        waitUntil(until, opts.assumeReply ? clock : until);
        if (opts.assumeReply && ticket) customerReplies(node.id);
        else assumeUnchanged(node.id, 'the wait');
        return opts.assumeReply;
      }
      case 'http_request':
        assumeUnchanged(node.id, 'the request');
        outbound.push({
          nodeId: node.id,
          type: 'http_request',
          method: action.method,
          url: action.url,
          ...(action.headers ? { headers: action.headers } : {}),
          ...(action.body !== undefined ? { body: action.body } : {}),
        });
        return undefined;
      case 'send_reply':
        if (!ticket) return fail(step, noTicket(action));
        outbound.push({
          nodeId: node.id,
          type: 'send_reply',
          to: ticket.customerEmail,
          subject: replySubject(ticket.subject, ticket.id),
          delivery: opts.mails ? 'mail' : 'not_configured',
          body: action.body,
          ...(action.bodyHtml !== undefined ? { bodyHtml: action.bodyHtml } : {}),
        });
        setTicket({ ...ticket, updatedAt: iso(clock) });
        return undefined;
      default: {
        if (!ticket) return fail(step, noTicket(action));
        try {
          const change = ticketChangeOf(action);
          if (change.assignedTo !== undefined && change.assignedTo !== AI_ASSIGNEE && !opts.isAssignable(change.assignedTo)) {
            throw new AppError(403, 'forbidden', `"${change.assignedTo}" is not a current member or admin of this workspace.`);
          }
          const applied = applyTicketChange(ticket, change, actor);
          if (Object.keys(applied.changes).length > 0) setTicket({ ...applied.ticket, updatedAt: iso(clock) });
        } catch (err) {
          fail(step, err);
        }
        return undefined;
      }
    }
  }

  /** A run reads its ticket afresh after a wait; the simulation can only take it as it was (what comes after it decides on it). */
  const followed = new Set(graph.edges.map((e) => e.source));
  function assumeUnchanged(nodeId: string, what: string): void {
    if (ticket && followed.has(nodeId)) assumptions.push(`After "${nodeId}" a run reads the ticket afresh; here it is taken as unchanged by anyone else during ${what}.`);
  }

  /** The reply a wait_for_reply is assumed to get: it reopens a pending or solved ticket, as a real one would. */
  function customerReplies(nodeId: string): void {
    const reopens = opts.reopensOnReply && reopensOnCustomerReply(ticket!.status as TicketStatus);
    assumptions.push(
      `"${nodeId}" is taken as answered by the customer in time${reopens ? `, which reopens the ${ticket!.status} ticket` : ''}; otherwise the ticket is taken as unchanged during the wait.`,
    );
    if (reopens) setTicket({ ...ticket!, status: 'open', resolutionType: null, updatedAt: iso(clock) });
  }

  /**
   * Later nodes see the ticket as changed, as in a run; `changes` keeps each field's first from
   * and last to (a reopen by an assumed reply included: it is how the run would leave the ticket).
   */
  function setTicket(next: TicketContext): void {
    for (const field of ['status', 'priority', 'assignedTo', 'resolutionType', 'tags'] as const) {
      const from = ticket![field];
      const to = next[field];
      if (JSON.stringify(from) === JSON.stringify(to)) continue;
      const first = Object.hasOwn(changes, field) ? changes[field].from : from;
      if (JSON.stringify(first) === JSON.stringify(to)) delete changes[field];
      else changes[field] = { from: first, to };
    }
    ticket = next;
    current = { ...current, ticket: next };
  }

  try {
    await walk(new GraphWalker(graph), async (id) => visit(nodes.get(id)!));
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
  }
  return { steps, changes, outbound, assumptions };
}

function noTicket(action: ActionData): Error {
  return new Error(`${action.actionType} needs a ticket, and this run has none.`);
}
