// What Deskflow's API answers, as the console reads it (docs/contract.md): the shapes of its
// resources and the error a refused call throws. No I/O and no DOM, so the pure models under
// model/ (and their unit tests) can use them; api.ts makes the calls.

import type { TriggerType, WorkflowGraph } from '../../src/graph/index.ts';
import type { Issue } from './model/issues.ts';
import type { Step } from './model/overlay.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Issue[];
  readonly etag: string | null;

  constructor(status: number, code: string, message: string, details: Issue[], etag: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.etag = etag;
  }
}

/** A save the API refused for its content, as a page shows it: "Not saved: …", with the issues the page could not place on a field. */
export function notSaved(refusal: ApiError, unplaced: Issue[]): ApiError {
  return new ApiError(refusal.status, refusal.code, `Not saved: ${refusal.message}`, unplaced, null);
}

export type WorkflowListItem = {
  id: string;
  name: string;
  description: string | null;
  triggerType: TriggerType;
  isActive: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  executionCount: number;
  lastTriggeredAt: string | null;
};

export type Workflow = Omit<WorkflowListItem, 'executionCount' | 'lastTriggeredAt'> & {
  workflowJson: WorkflowGraph;
  webhook?: { path: string; secret: string };
};

export type Execution = {
  id: string;
  workflowId: string;
  workflowVersion: number;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
  triggeredBy: string;
  ticketId: string | null;
  startedAt: string;
  completedAt: string | null;
  steps: Step[];
  error: string | null;
  runId?: string | null;
};

export type Ticket = {
  id: string;
  subject: string;
  status: string;
  priority: string;
  customerEmail: string;
  customerName: string | null;
  source: string;
  assignedTo: string | null;
  resolutionType: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
};

export type Message = {
  id: string;
  ticketId: string;
  direction: 'inbound' | 'outbound';
  senderEmail: string;
  senderName: string | null;
  body: string;
  bodyHtml: string | null;
  createdAt: string;
};

/** An agent's internal note on a ticket: never sent to the customer. */
export type Note = {
  id: string;
  ticketId: string;
  authorId: string;
  body: string;
  createdAt: string;
};

/** What PATCH /api/v1/tickets/:id changes. */
export type TicketPatch = { status?: string; priority?: string; assignedTo?: string };

/** One page of GET /api/v1/tickets. */
export type TicketPage = { data: Ticket[]; pagination: { page: number; perPage: number; total: number } };

export type DryRun = {
  /** The instant the graph was walked as if it were (newer servers). */
  at?: string;
  steps: Step[];
  changes: Record<string, { from: unknown; to: unknown }>;
  outbound: Array<Record<string, unknown> & { nodeId: string; type: string }>;
  /** What the simulation takes for granted where a real run would look again (newer servers). */
  assumptions?: string[];
};

export type Backtest = {
  eventsExamined: number;
  matched: number;
  actionsWouldRun: Record<string, number>;
  sample: Array<{ eventId: string | null; ticketId: string | null; at: string; steps: Step[] }>;
  assumptions?: string[];
};

export type DryRunInput = {
  ticketId?: string;
  data?: Record<string, unknown>;
  changes?: Record<string, { from: unknown; to: unknown }>;
  message?: Record<string, unknown>;
  tag?: string;
  assumeReply?: boolean;
  /** The branch every request_approval takes: approved (default) or rejected. */
  approvals?: 'approve' | 'reject';
  /** Walk the graph as if it were then (ISO 8601 with an offset); default now. */
  at?: string;
};

export type { Calendar, CalendarInput } from './model/calendar-form.ts';
export type { SlaPolicy, SlaPolicyInput } from './model/sla-form.ts';
export type { SlaBacktest } from './model/sla-page.ts';

/** A target of a ticket's clocks, where it stands at the moment of the answer (GET /api/v1/tickets/:id/sla). */
export type SlaTargetState = {
  metric: 'first_reply' | 'next_reply' | 'resolution';
  status: 'active' | 'paused' | 'fulfilled' | 'breached';
  startedAt: string;
  dueAt: string | null;
  warnAt: string | null;
  pausedSeconds: number;
  fulfilledAt: string | null;
  breachedAt: string | null;
};
export type TicketSla = { policyId: string; policyName: string; targets: SlaTargetState[] } | null;

/** A running target of the queue of what breaks next (GET /api/sla/tickets). */
export type SlaQueueItem = {
  ticketId: string;
  subject: string;
  priority: string;
  status: string;
  metric: 'first_reply' | 'next_reply' | 'resolution';
  dueAt: string;
  targetStatus: 'breached' | 'warning' | 'active';
};

/** A current member or admin of the workspace (GET /api/members). */
export type Member = { userId: string; role: 'member' | 'admin' };

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

/** A run's question to named people (GET /api/approvals). */
export type Approval = {
  id: string;
  /** `run`: a request_approval node of a run; `ai_owner`: the AI owner about a draft reply. */
  source: 'run' | 'ai_owner';
  workflowId: string | null;
  executionId: string | null;
  ticketId: string | null;
  nodeId: string | null;
  draftId: string | null;
  question: string;
  approvers: string[];
  quorum: 'any' | 'all';
  status: ApprovalStatus;
  decisions: Array<{ userId: string; decision: 'approve' | 'reject'; comment: string | null; at: string }>;
  requestedAt: string;
  dueAt: string | null;
  decidedAt: string | null;
};

export type WorkflowPatch = Partial<Pick<Workflow, 'name' | 'description' | 'isActive' | 'triggerType' | 'workflowJson'>>;

// --- knowledge and the AI owner (docs/ai.md) ---------------------------------------------

export type KnowledgeArticle = {
  id: string;
  title: string;
  /** Markdown. */
  body: string;
  language: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
};

export type ArticleInput = { title: string; body: string; language: string | null; tags: string[] };

export type KnowledgeSearchResult = { article: { id: string; title: string }; score: number; excerpt: string };

export type AiSettings = {
  enabled: boolean;
  /** The model's key is write-only: the server says only whether one is kept. */
  model: { baseUrl: string; model: string; apiKeySet: boolean } | null;
  instructions: string;
  handoffTo: string | null;
  minScore: number;
  maxRepliesPerTicket: number;
  autoSend: boolean;
  senderName: string;
};

/** A change of the settings; `model.apiKey` left out keeps the kept key (while baseUrl stays), null drops it. */
export type AiSettingsPatch = Partial<Omit<AiSettings, 'model'>> & { model?: { baseUrl: string; model: string; apiKey?: string | null } | null };

/** What the owner did about one customer message of a ticket (GET /api/v1/tickets/:id/ai), oldest first: for the ticket page. */
export type AiTurn = {
  id: string;
  at: string;
  action: 'reply' | 'handoff' | 'draft';
  reason: string | null;
  citations: string[];
  messageId: string | null;
  answersMessageId: string;
  model: string | null;
  draft: { body: string; state: 'waiting' | 'sent' | 'superseded' | 'discarded'; sentAt: string | null; sentBy: string | null; approvalId: string | null } | null;
};

/** What the owner would do on a ticket now (POST /api/v1/tickets/:id/ai/dry-run). */
export type AiDryRun = {
  acts: boolean;
  why: string | null;
  action: 'reply' | 'draft' | 'handoff' | null;
  body: string | null;
  citations: string[];
  reason: string | null;
  model: string | null;
  articles: Array<{ id: string; title: string; score: number }>;
};
