import { replySubject } from '../mail/compose.ts';
import type { Actor } from '../actor.ts';
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
  /** A condition's outcome, or the branch a wait_for_reply or request_approval takes. */
  result?: boolean;
  /** Of a request_approval: who would be asked. */
  approvers?: string[];
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
  /** The decision every request_approval gets (default: approve). */
  approvals?: 'approve' | 'reject';
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
  /** Refuses a person who may not be assigned tickets of the workspace (not a member or admin), as the run would: throws its 403. */
  checkAssignee: (assignee: string) => void;
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
  const run = new SimulatedRun(graph, context, opts);
  try {
    await walk(new GraphWalker(graph), async (id) => run.visit(id));
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
  }
  return run.result();
}

/** Not a real actor: a change made by a run is attributed to its workflow, which decides the resolution type. */
const RUN_ACTOR: Actor = { type: 'workflow', workflowId: '', executionId: '', chain: [] };

const iso = (t: number) => new Date(t).toISOString();

/** The state of one simulated run as the walk goes: its steps, outbound effects, ticket and clock. */
class SimulatedRun {
  private readonly steps: SimulatedStep[] = [];
  private readonly outbound: Outbound[] = [];
  private readonly assumptions: string[] = [];
  private readonly changes: Record<string, FieldChange> = {};
  private readonly graph: WorkflowGraph;
  private readonly opts: SimulationOptions;
  private readonly nodes: Map<string, GraphNode>;
  /** Nodes that something follows: only after those does a fresh read of the ticket matter. */
  private readonly followed: Set<string>;
  // Each node happens at a time of its own: when the last of the branches that lead to it got
  // there. Waits move it on; everything else takes no time.
  private readonly finishedAt = new Map<string, number>();
  private readonly outcomes = new Map<string, boolean | undefined>();
  private ticket: TicketContext | null;
  private current: RunContext;
  private clock: number;

  constructor(graph: WorkflowGraph, context: RunContext, opts: SimulationOptions) {
    this.graph = graph;
    this.opts = opts;
    this.nodes = nodeById(graph);
    this.followed = new Set(graph.edges.map((e) => e.source));
    this.ticket = opts.ticket;
    this.current = context;
    this.clock = opts.now.getTime();
  }

  result(): Simulation {
    return { steps: this.steps, changes: this.changes, outbound: this.outbound, assumptions: this.assumptions };
  }

  visit(nodeId: string): boolean | undefined {
    const node = this.nodes.get(nodeId)!;
    this.clock = this.startOf(node);
    const outcome = this.visitAt(node);
    this.outcomes.set(node.id, outcome);
    if (!this.finishedAt.has(node.id)) this.finishedAt.set(node.id, this.clock);
    return outcome;
  }

  private startOf(node: GraphNode): number {
    let start: number | undefined;
    for (const e of this.graph.edges) {
      const end = this.finishedAt.get(e.source);
      if (e.target !== node.id || end === undefined) continue;
      const source = this.nodes.get(e.source)!;
      const taken = !isBranchingNode(source) || (e.label === 'false' ? this.outcomes.get(e.source) === false : this.outcomes.get(e.source) === true);
      if (taken) start = Math.max(start ?? end, end);
    }
    return start ?? this.opts.now.getTime();
  }

  private visitAt(node: GraphNode): boolean | undefined {
    if (node.type === 'trigger') {
      this.steps.push({ nodeId: node.id, status: 'passed' });
      return undefined;
    }
    if (node.type === 'condition') return this.condition(node.id, node.data);
    const action = renderAction(node.data, this.current);
    const step: SimulatedStep = { nodeId: node.id, status: 'completed', action };
    this.steps.push(step);
    switch (action.actionType) {
      case 'delay':
        return this.delay(step, action);
      case 'wait_for_reply':
        return this.waitForReply(step, action);
      case 'request_approval':
        return this.requestApproval(step, action);
      case 'http_request':
        return this.httpRequest(step, action);
      case 'send_reply':
        return this.sendReply(step, action);
      default:
        return this.changeTicket(step, action);
    }
  }

  private condition(nodeId: string, data: Parameters<typeof evaluateCondition>[0]): boolean | undefined {
    const step: SimulatedStep = { nodeId, status: 'passed' };
    this.steps.push(step);
    try {
      step.result = evaluateCondition(data, this.current, { now: this.clock, calendars: this.opts.calendars });
    } catch (err) {
      fail(step, err);
    }
    return step.result;
  }

  private delay(step: SimulatedStep, action: Extract<ActionData, { actionType: 'delay' }>): undefined {
    const clock = this.clock;
    if (action.businessSeconds !== undefined) {
      let until = clock;
      try {
        until = this.openTimeAfter(action.calendarId, clock, action.businessSeconds);
      } catch (err) {
        fail(step, err);
      }
      step.waitSeconds = (until - clock) / 1000;
      this.waitUntil(step, until);
    } else if (action.seconds !== undefined) {
      step.waitSeconds = action.seconds;
      this.waitUntil(step, clock + Math.round(action.seconds * 1000));
    } else {
      // An instant in the past does not wait.
      const until = Math.max(clock, parseIsoInstant(action.until ?? '') ?? 0);
      step.waitSeconds = Math.ceil((until - clock) / 1000);
      this.waitUntil(step, until);
    }
    this.assumeUnchanged(step.nodeId, 'the delay');
    return undefined;
  }

  private waitForReply(step: SimulatedStep, action: Extract<ActionData, { actionType: 'wait_for_reply' }>): boolean {
    const clock = this.clock;
    let until = clock + action.timeoutSeconds * 1000;
    if (action.calendarId !== undefined) {
      try {
        until = this.openTimeAfter(action.calendarId, clock, action.timeoutSeconds);
      } catch (err) {
        fail(step, err);
      }
    }
    step.waitSeconds = (until - clock) / 1000;
    step.result = this.opts.assumeReply;
    // An assumed reply comes at once; without one the branch goes on at the deadline.
    this.waitUntil(step, until, this.opts.assumeReply ? clock : until);
    if (this.opts.assumeReply && this.ticket) this.customerReplies(step.nodeId);
    else this.assumeUnchanged(step.nodeId, 'the wait');
    return this.opts.assumeReply;
  }

  /**
   * A request_approval: who would be asked, and the branch the decision `approvals` assumes
   * takes, at once; with a time-out, when it would expire at the latest.
   */
  private requestApproval(step: SimulatedStep, action: Extract<ActionData, { actionType: 'request_approval' }>): boolean {
    const clock = this.clock;
    const approved = (this.opts.approvals ?? 'approve') === 'approve';
    step.approvers = [...action.approvers];
    step.result = approved;
    if (action.timeoutSeconds !== undefined) {
      let until = clock + Math.round(action.timeoutSeconds * 1000);
      if (action.calendarId !== undefined) {
        try {
          until = this.openTimeAfter(action.calendarId, clock, action.timeoutSeconds);
        } catch (err) {
          fail(step, err);
        }
      }
      step.waitSeconds = (until - clock) / 1000;
      this.waitUntil(step, until, clock);
    }
    const who = action.quorum === 'all' ? `all of ${action.approvers.join(', ')}` : `${action.approvers.length === 1 ? '' : 'one of '}${action.approvers.join(', ')}`;
    this.assumptions.push(`"${step.nodeId}" is taken as ${approved ? 'approved' : 'rejected'} by ${who} at once; a run waits for the decision${action.timeoutSeconds !== undefined ? ' or its time-out' : ''}.`);
    this.assumeUnchanged(step.nodeId, 'the wait for the decision');
    return approved;
  }

  private httpRequest(step: SimulatedStep, action: Extract<ActionData, { actionType: 'http_request' }>): undefined {
    this.assumeUnchanged(step.nodeId, 'the request');
    this.outbound.push({
      nodeId: step.nodeId,
      type: 'http_request',
      method: action.method,
      url: action.url,
      ...(action.headers ? { headers: action.headers } : {}),
      ...(action.body !== undefined ? { body: action.body } : {}),
    });
    return undefined;
  }

  private sendReply(step: SimulatedStep, action: Extract<ActionData, { actionType: 'send_reply' }>): undefined {
    const ticket = this.ticket;
    if (!ticket) return fail(step, noTicket(action));
    this.outbound.push({
      nodeId: step.nodeId,
      type: 'send_reply',
      to: ticket.customerEmail,
      subject: replySubject(ticket.subject, ticket.id),
      delivery: this.opts.mails ? 'mail' : 'not_configured',
      body: action.body,
      ...(action.bodyHtml !== undefined ? { bodyHtml: action.bodyHtml } : {}),
    });
    this.setTicket({ ...ticket, updatedAt: iso(this.clock) });
    return undefined;
  }

  /** A ticket action (status, priority, assignee, tags…): applied to the simulated ticket as the run would. */
  private changeTicket(step: SimulatedStep, action: ActionData): undefined {
    const ticket = this.ticket;
    if (!ticket) return fail(step, noTicket(action));
    try {
      const change = ticketChangeOf(action);
      if (change.assignedTo != null && change.assignedTo !== AI_ASSIGNEE) this.opts.checkAssignee(change.assignedTo);
      const applied = applyTicketChange(ticket, change, RUN_ACTOR);
      if (Object.keys(applied.changes).length > 0) this.setTicket({ ...applied.ticket, updatedAt: iso(this.clock) });
    } catch (err) {
      fail(step, err);
    }
    return undefined;
  }

  /** A wait's step ends at `until`; the branch after it goes on at `finished` (earlier for an assumed reply). */
  private waitUntil(step: SimulatedStep, until: number, finished = until): void {
    step.until = iso(until);
    this.finishedAt.set(step.nodeId, finished);
  }

  /** The end of a wait of `seconds` of open time of a calendar, from `start`. */
  private openTimeAfter(calendarId: string, start: number, seconds: number): number {
    const calendar = this.opts.calendars[calendarId.toLowerCase()];
    if (!calendar) throw new CalendarError(`There is no calendar "${calendarId}" in this workspace.`);
    try {
      return addOpenTime(businessSchedule(calendar), start, Math.round(seconds * 1000));
    } catch (err) {
      if (err instanceof CalendarError) throw new CalendarError(`A wait of ${formatDuration(seconds * 1000)} of open time cannot end: ${err.message}.`);
      throw err;
    }
  }

  /** A run reads its ticket afresh after a wait; the simulation can only take it as it was (what comes after it decides on it). */
  private assumeUnchanged(nodeId: string, what: string): void {
    if (this.ticket && this.followed.has(nodeId)) this.assumptions.push(`After "${nodeId}" a run reads the ticket afresh; here it is taken as unchanged by anyone else during ${what}.`);
  }

  /** The reply a wait_for_reply is assumed to get: it reopens a pending or solved ticket, as a real one would. */
  private customerReplies(nodeId: string): void {
    const ticket = this.ticket!;
    const reopens = this.opts.reopensOnReply && reopensOnCustomerReply(ticket.status as TicketStatus);
    this.assumptions.push(
      `"${nodeId}" is taken as answered by the customer in time${reopens ? `, which reopens the ${ticket.status} ticket` : ''}; otherwise the ticket is taken as unchanged during the wait.`,
    );
    if (reopens) this.setTicket({ ...ticket, status: 'open', resolutionType: null, updatedAt: iso(this.clock) });
  }

  /**
   * Later nodes see the ticket as changed, as in a run; `changes` keeps each field's first from
   * and last to (a reopen by an assumed reply included: it is how the run would leave the ticket).
   */
  private setTicket(next: TicketContext): void {
    for (const field of ['status', 'priority', 'assignedTo', 'resolutionType', 'tags'] as const) {
      const from = this.ticket![field];
      const to = next[field];
      if (JSON.stringify(from) === JSON.stringify(to)) continue;
      const first = Object.hasOwn(this.changes, field) ? this.changes[field].from : from;
      if (JSON.stringify(first) === JSON.stringify(to)) delete this.changes[field];
      else this.changes[field] = { from: first, to };
    }
    this.ticket = next;
    this.current = { ...this.current, ticket: next };
  }
}

/** Marks the step failed and ends the walk there. */
function fail(step: SimulatedStep, err: unknown): never {
  step.status = 'failed';
  step.error = err instanceof Error ? err.message : String(err);
  throw new StepFailed(step.error);
}

function noTicket(action: ActionData): Error {
  return new Error(`${action.actionType} needs a ticket, and this run has none.`);
}
