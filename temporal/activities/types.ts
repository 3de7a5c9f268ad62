// What the run workflows and their activities agree on: the inputs and answers that cross
// between them, and the signature of every activity. Types only, so that the workflow sandbox
// may import it (erased when bundled) and the activities implement it (createActivities).
import type { ApprovalOutcome, ApprovalRequest, AskedApproval } from '../../src/approvals/runs.ts';
import type { BusinessDeadline } from '../../src/calendars/runs.ts';
import type { ExecutionStatus, StepStatus } from '../../src/executions/entity.ts';
import type { ActionData, ConditionData, RunContext } from '../../src/graph/index.ts';
import type { TicketContext } from '../../src/tickets/context.ts';
import type { TickBatch } from '../../src/triggers/ticks.ts';
import type { FireInstant } from '../../src/sla/instants.ts';
import type { HttpResult } from './http-request.ts';

export type { RunGraphInput } from '../../src/executions/run-input.ts';
export type { ApprovalOutcome, AskedApproval } from '../../src/approvals/runs.ts';

/** A step as the workflow passes it (dates arrive as ISO strings once serialized). */
export type StepInput = {
  nodeId: string;
  seq?: number;
  status: StepStatus;
  result?: unknown;
  startedAt: Date | string;
  completedAt: Date | string | null;
  error?: string | null;
  /** Of a wait: when it ends. */
  until?: Date | string | null;
};

export type ActionInput = {
  executionId: string;
  workspaceId: string;
  workflowId: string;
  ticketId: string | null;
  chain: string[];
  nodeId: string;
  action: ActionData;
  startedAt: string;
  /** The node's position in the run's walk. */
  seq?: number;
  /** Steps the run walked since its last write, recorded with this action's effect. */
  steps?: StepInput[];
  /**
   * send_reply of a run that delivers the mail itself, as a step (runAutomation); without it
   * (runGraph, runs begun before mail) a delivery workflow of its own sends it.
   */
  deliverInRun?: boolean;
  /**
   * The run's first effect: the execution goes from pending to running in the action's own
   * transaction (one local activity, not two), and the action is not taken when it was
   * cancelled before it began (the outcome says `notRunning`).
   */
  begin?: boolean;
};

export type ActionOutcome = {
  result?: unknown;
  ticket?: Record<string, unknown>;
  completedAt?: string;
  /** A reply whose mail the run is to deliver next (its step is `waiting` until then). */
  deliver?: { messageId: string; to: string };
  /** Asked to begin the run, the action found it no longer pending or running (cancelled, gone) and did nothing. */
  notRunning?: true;
};

/** One action of runActions: its outcome, or the reason it failed (a broken rule: it changed nothing). */
export type BatchOutcome = ActionOutcome | { failed: string; failureType: string | null };

/** What runActions answers: an outcome per action, whether the run ended with them, or that it is not running. */
export type BatchAnswer = { outcomes: BatchOutcome[]; finished: boolean; notRunning?: true };

/** How a run ends. */
export type RunEnd = 'completed' | 'failed' | 'cancelled';

/**
 * The activities of the run workflows (createActivities). Each opens its own unit of work; a
 * broken rule fails at once (non-retryable), anything else is left to the caller's retry policy.
 */
export type Activities = {
  /** pending → running, with the steps walked so far; the status afterwards. */
  beginRun(input: { executionId: string; steps: StepInput[] }): Promise<ExecutionStatus | null>;
  recordSteps(input: { executionId: string; steps: StepInput[] }): Promise<void>;
  /** Records the steps walked since the last write and reads the ticket as it is now (null: gone). */
  resumeRun(input: { executionId: string; workspaceId: string; ticketId: string; steps: StepInput[] }): Promise<{ ticket: TicketContext | null }>;
  /** The deadline of a business-time wait that begins now, computed outside the workflow. */
  businessDeadline(input: { workspaceId: string; calendarId: string; from: string; seconds: number }): Promise<BusinessDeadline>;
  /** A condition that names calendars, evaluated at the run's `now`. */
  evaluateWithCalendars(input: { workspaceId: string; condition: ConditionData; context: RunContext; now: string }): Promise<boolean>;
  finishRun(input: { executionId: string; status: RunEnd; error: string | null; steps: StepInput[] }): Promise<void>;
  /** Whether the ticket's customer replied between the two instants, inclusive. */
  customerRepliedBetween(input: { ticketId: string; from: string; to: string }): Promise<boolean>;
  /** One attempt of an outbound request; the workflow records its step. */
  httpRequest(input: ActionInput): Promise<HttpResult>;
  /** How many executions of earlier ticks of the workflow are still unfinished. */
  unfinishedEarlierTickRuns(input: { workflowId: string; tickStartedAt: number }): Promise<number>;
  /** One batch of a scheduled tick: creates and starts the executions of up to 200 matching tickets. */
  runTickBatch(input: { workflowId: string; tickId: string; cursor: string | null }): Promise<TickBatch>;
  /** A ticket action (and, for runGraph, an outbound request), with its step and the steps walked before it. */
  runAction(input: ActionInput): Promise<ActionOutcome>;
  /** A request_approval: the approval, pending, and the node's step waiting for it, with the steps walked before it. */
  requestApproval(input: ApprovalRequest & { steps: StepInput[] }): Promise<AskedApproval>;
  /** Where an approval stands; with `expire` (its time-out came) a pending one expires now. */
  settleApproval(input: { approvalId: string; expire: boolean }): Promise<ApprovalOutcome>;
  /** The ticket actions a run reached at once; with `finish`, the run ends with them when they are its last. */
  runActions(input: { actions: ActionInput[]; finish?: boolean }): Promise<BatchAnswer>;
  // runGraph (the first version of the run workflow) records its steps one by one.
  beginExecution(executionId: string): Promise<ExecutionStatus | null>;
  recordStep(executionId: string, step: StepInput): Promise<void>;
  finishExecution(executionId: string, status: RunEnd, error: string | null): Promise<void>;
};

/** The activity of the service-level timers (slaClocks). */
export type SlaActivities = {
  /** Acts on the instants that have come: writes each one's sla_warning or sla_breached event once, if its target still stands so in PostgreSQL; answers those that fired. */
  slaInstantsDue(input: { ticketId: string; instants: FireInstant[] }): Promise<FireInstant[]>;
};

// The AI owner's run and its activities (temporal/workflows/ai-owner.ts, ./ai.ts).
export type { ActResult, AiActivities, ModelAsk, ModelReply, OwnerDecision, OwnerInput, OwnerLook } from '../../src/ai/run-types.ts';
