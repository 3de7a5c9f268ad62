// The console's client of Deskflow's public API. The API key lives in this tab's
// sessionStorage only: never in a URL, a cookie or localStorage, and it is gone when the tab is.

import type { TriggerType, WorkflowGraph } from '../../src/graph/index.ts';
import { ApiError, type AiDryRun, type AiSettings, type AiSettingsPatch, type AiTurn, type ArticleInput, type KnowledgeArticle, type KnowledgeSearchResult, type Approval, type ApprovalStatus, type Backtest, type Calendar, type CalendarInput, type DryRun, type DryRunInput, type Execution, type Member, type Message, type Note, type SlaBacktest, type SlaPolicy, type SlaPolicyInput, type SlaQueueItem, type SlaTargetState, type TicketSla, type Ticket, type TicketPage, type TicketPatch, type Workflow, type WorkflowListItem, type WorkflowPatch } from './api-types.ts';
import { ticketQuery, type TicketFilter } from './model/inbox.ts';
import type { Issue } from './model/issues.ts';

export { ApiError } from './api-types.ts';
export type { AiDryRun, AiSettings, AiSettingsPatch, AiTurn, ArticleInput, KnowledgeArticle, KnowledgeSearchResult, Approval, ApprovalStatus, Backtest, Calendar, CalendarInput, DryRun, DryRunInput, Execution, Member, Message, Note, SlaBacktest, SlaPolicy, SlaPolicyInput, SlaQueueItem, SlaTargetState, Ticket, TicketPage, TicketSla, TicketPatch, Workflow, WorkflowListItem, WorkflowPatch } from './api-types.ts';

const KEY = 'deskflow.apiKey';

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key.trim()),
  clear: () => sessionStorage.removeItem(KEY),
};

/** Called when the key is refused (401), so the page can ask for another. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

type Answer<T> = { body: T; etag: string | null };

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const key = apiKey.get();
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'Deskflow could not be reached. Check that it is running, then try again.', [], null);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: Issue[] } } | undefined)?.error;
    if (res.status === 401) onUnauthorized();
    throw new ApiError(res.status, error?.code ?? 'http_error', error?.message ?? `The request failed (${res.status}).`, error?.details ?? [], res.headers.get('etag'));
  }
  return { body: parsed as T, etag: res.headers.get('etag') };
}

const query = (params: Record<string, string | number | boolean | undefined | null>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : '';
};

// ---------------------------------------------------------------------------------------
// Calls

export const api = {
  async listWorkflows(active?: boolean): Promise<WorkflowListItem[]> {
    return (await call<{ workflows: WorkflowListItem[] }>('GET', `/api/workflows${query({ active })}`)).body.workflows;
  },
  async createWorkflow(input: { name: string; description?: string | null; triggerType: TriggerType }): Promise<{ id: string }> {
    return (await call<{ workflow: { id: string } }>('POST', '/api/workflows', input)).body.workflow;
  },
  async getWorkflow(id: string): Promise<{ workflow: Workflow; etag: string | null }> {
    const { body, etag } = await call<{ workflow: Workflow }>('GET', `/api/workflows/${encodeURIComponent(id)}`);
    return { workflow: body.workflow, etag };
  },
  /** With `ifMatch`, the change applies only if nobody saved the workflow since (else an ApiError 412 `precondition_failed`). */
  async updateWorkflow(id: string, patch: WorkflowPatch, ifMatch?: string | null): Promise<{ workflow: Workflow; etag: string | null }> {
    const { body, etag } = await call<{ workflow: Workflow }>('PATCH', `/api/workflows/${encodeURIComponent(id)}`, patch, ifMatch ? { 'if-match': ifMatch } : {});
    return { workflow: body.workflow, etag };
  },
  async deleteWorkflow(id: string): Promise<void> {
    await call('DELETE', `/api/workflows/${encodeURIComponent(id)}`);
  },
  async listExecutions(workflowId: string, opts: { status?: string; before?: string; limit?: number } = {}): Promise<Execution[]> {
    return (await call<{ executions: Execution[] }>('GET', `/api/workflows/${encodeURIComponent(workflowId)}/executions${query(opts)}`)).body.executions;
  },
  async getExecution(workflowId: string, executionId: string): Promise<Execution> {
    return (await call<{ execution: Execution }>('GET', `/api/workflows/${encodeURIComponent(workflowId)}/executions/${encodeURIComponent(executionId)}`)).body.execution;
  },
  async cancelExecution(workflowId: string, executionId: string): Promise<Execution> {
    return (await call<{ execution: Execution }>('POST', `/api/workflows/${encodeURIComponent(workflowId)}/executions/${encodeURIComponent(executionId)}/cancel`)).body.execution;
  },
  async dryRunGraph(triggerType: TriggerType, workflowJson: WorkflowGraph, input: DryRunInput): Promise<DryRun> {
    return (await call<{ dryRun: DryRun }>('POST', '/api/workflows/dry-run', { triggerType, workflowJson, ...input })).body.dryRun;
  },
  async backtest(workflowId: string, input: { since?: string; until?: string; limit?: number; assumeReply?: boolean }): Promise<Backtest> {
    return (await call<{ backtest: Backtest }>('POST', `/api/workflows/${encodeURIComponent(workflowId)}/backtest`, input)).body.backtest;
  },
  /** A page of the tickets `filter` selects (see model/inbox.ts; a filter naming "me" needs `me`). */
  async listTickets(opts: { filter?: TicketFilter; me?: string | null; page?: number; perPage?: number } = {}): Promise<TicketPage> {
    const search = ticketQuery(opts.filter ?? {}, opts.me ?? null, { page: opts.page ?? 1, perPage: opts.perPage ?? 20 });
    if (search === null) throw new ApiError(0, 'no_agent', 'Choose who you are (top right) to see the tickets assigned to you.', [], null);
    return (await call<TicketPage>('GET', `/api/v1/tickets?${search}`)).body;
  },
  async getTicket(id: string): Promise<Ticket> {
    return (await call<{ data: Ticket }>('GET', `/api/v1/tickets/${encodeURIComponent(id)}`)).body.data;
  },
  async listMessages(ticketId: string, opts: { before?: string; limit?: number } = {}): Promise<{ data: Message[]; total: number; truncated: boolean }> {
    return (await call<{ data: Message[]; total: number; truncated: boolean }>('GET', `/api/v1/tickets/${encodeURIComponent(ticketId)}/messages${query(opts)}`)).body;
  },
  async ticketExecutions(ticketId: string, opts: { status?: string; before?: string; limit?: number } = {}): Promise<Execution[]> {
    return (await call<{ executions: Execution[] }>('GET', `/api/v1/tickets/${encodeURIComponent(ticketId)}/executions${query(opts)}`)).body.executions;
  },
  async updateTicket(id: string, patch: TicketPatch): Promise<Ticket> {
    return (await call<{ data: Ticket }>('PATCH', `/api/v1/tickets/${encodeURIComponent(id)}`, patch)).body.data;
  },
  /** An agent's reply to the customer: an outbound message, mailed when the workspace has a mailbox. */
  async reply(ticketId: string, input: { authorId: string; body: string }): Promise<Message> {
    return (await call<{ data: Message }>('POST', `/api/v1/tickets/${encodeURIComponent(ticketId)}/replies`, input)).body.data;
  },
  async listNotes(ticketId: string): Promise<Note[]> {
    return (await call<{ data: Note[] }>('GET', `/api/v1/tickets/${encodeURIComponent(ticketId)}/notes`)).body.data;
  },
  async addNote(ticketId: string, input: { authorId: string; body: string }): Promise<Note> {
    return (await call<{ data: Note }>('POST', `/api/v1/tickets/${encodeURIComponent(ticketId)}/notes`, input)).body.data;
  },
  async addTag(ticketId: string, tag: string): Promise<Ticket> {
    return (await call<{ data: Ticket }>('POST', `/api/v1/tickets/${encodeURIComponent(ticketId)}/tags`, { tag })).body.data;
  },
  async removeTag(ticketId: string, tag: string): Promise<Ticket> {
    return (await call<{ data: Ticket }>('DELETE', `/api/v1/tickets/${encodeURIComponent(ticketId)}/tags/${encodeURIComponent(tag)}`)).body.data;
  },
  async listCalendars(): Promise<Calendar[]> {
    return (await call<{ calendars: Calendar[] }>('GET', '/api/calendars')).body.calendars;
  },
  async getCalendar(id: string): Promise<Calendar> {
    return (await call<{ calendar: Calendar }>('GET', `/api/calendars/${encodeURIComponent(id)}`)).body.calendar;
  },
  async createCalendar(input: CalendarInput): Promise<Calendar> {
    return (await call<{ calendar: Calendar }>('POST', '/api/calendars', input)).body.calendar;
  },
  async updateCalendar(id: string, input: Partial<CalendarInput>): Promise<Calendar> {
    return (await call<{ calendar: Calendar }>('PATCH', `/api/calendars/${encodeURIComponent(id)}`, input)).body.calendar;
  },
  /** Refused with a 409 `calendar_in_use` (naming them) while active workflows name the calendar. */
  async deleteCalendar(id: string): Promise<void> {
    await call('DELETE', `/api/calendars/${encodeURIComponent(id)}`);
  },
  async listMembers(): Promise<Member[]> {
    return (await call<{ members: Member[] }>('GET', '/api/members')).body.members;
  },
  async listApprovals(opts: { status?: ApprovalStatus; approver?: string; limit?: number; before?: string } = {}): Promise<Approval[]> {
    return (await call<{ approvals: Approval[] }>('GET', `/api/approvals${query(opts)}`)).body.approvals;
  },
  async getApproval(id: string): Promise<Approval> {
    return (await call<{ approval: Approval }>('GET', `/api/approvals/${encodeURIComponent(id)}`)).body.approval;
  },
  /** Refused with a 403 (not an approver, no longer a member) or a 409 (no longer pending, already decided), each saying why. */
  async decideApproval(id: string, input: { userId: string; decision: 'approve' | 'reject'; comment?: string }): Promise<Approval> {
    return (await call<{ approval: Approval }>('POST', `/api/approvals/${encodeURIComponent(id)}/decision`, input)).body.approval;
  },
  /** In the order they are matched: position, then oldest first. */
  async listSlaPolicies(): Promise<SlaPolicy[]> {
    return (await call<{ policies: SlaPolicy[] }>('GET', '/api/sla-policies')).body.policies;
  },
  async getSlaPolicy(id: string): Promise<SlaPolicy> {
    return (await call<{ policy: SlaPolicy }>('GET', `/api/sla-policies/${encodeURIComponent(id)}`)).body.policy;
  },
  async createSlaPolicy(input: SlaPolicyInput): Promise<SlaPolicy> {
    return (await call<{ policy: SlaPolicy }>('POST', '/api/sla-policies', input)).body.policy;
  },
  async updateSlaPolicy(id: string, patch: Partial<SlaPolicyInput> & { position?: number }): Promise<SlaPolicy> {
    return (await call<{ policy: SlaPolicy }>('PATCH', `/api/sla-policies/${encodeURIComponent(id)}`, patch)).body.policy;
  },
  async deleteSlaPolicy(id: string): Promise<void> {
    await call('DELETE', `/api/sla-policies/${encodeURIComponent(id)}`);
  },
  /** What the policy (saved or not) would have said of the tickets of the last `days` days; nothing is written. */
  async backtestSlaPolicy(policy: SlaPolicyInput, days: unknown): Promise<SlaBacktest> {
    return (await call<SlaBacktest>('POST', '/api/sla-policies/backtest', { policy, days })).body;
  },
  async ticketSla(ticketId: string): Promise<TicketSla> {
    return (await call<{ sla: TicketSla }>('GET', `/api/v1/tickets/${encodeURIComponent(ticketId)}/sla`)).body.sla;
  },
  /** What breaks next: running targets, nearest due first. */
  async slaQueue(opts: { status?: string; metric?: string; limit?: number } = {}): Promise<SlaQueueItem[]> {
    return (await call<{ data: SlaQueueItem[] }>('GET', `/api/sla/tickets${query(opts)}`)).body.data;
  },
  async listArticles(): Promise<KnowledgeArticle[]> {
    return (await call<{ articles: KnowledgeArticle[] }>('GET', '/api/knowledge')).body.articles;
  },
  async searchArticles(q: string, opts: { language?: string; limit?: number } = {}): Promise<KnowledgeSearchResult[]> {
    return (await call<{ results: KnowledgeSearchResult[] }>('GET', `/api/knowledge/search${query({ q, ...opts })}`)).body.results;
  },
  async getArticle(id: string): Promise<KnowledgeArticle> {
    return (await call<{ article: KnowledgeArticle }>('GET', `/api/knowledge/${encodeURIComponent(id)}`)).body.article;
  },
  async createArticle(input: ArticleInput): Promise<KnowledgeArticle> {
    return (await call<{ article: KnowledgeArticle }>('POST', '/api/knowledge', input)).body.article;
  },
  async updateArticle(id: string, input: Partial<ArticleInput>): Promise<KnowledgeArticle> {
    return (await call<{ article: KnowledgeArticle }>('PATCH', `/api/knowledge/${encodeURIComponent(id)}`, input)).body.article;
  },
  async deleteArticle(id: string): Promise<void> {
    await call('DELETE', `/api/knowledge/${encodeURIComponent(id)}`);
  },
  async getAiSettings(): Promise<AiSettings> {
    return (await call<{ ai: AiSettings }>('GET', '/api/ai')).body.ai;
  },
  async updateAiSettings(patch: AiSettingsPatch): Promise<AiSettings> {
    return (await call<{ ai: AiSettings }>('PATCH', '/api/ai', patch)).body.ai;
  },
  async aiTurns(ticketId: string): Promise<AiTurn[]> {
    return (await call<{ turns: AiTurn[] }>('GET', `/api/v1/tickets/${encodeURIComponent(ticketId)}/ai`)).body.turns;
  },
  async aiDryRun(ticketId: string): Promise<AiDryRun> {
    return (await call<{ dryRun: AiDryRun }>('POST', `/api/v1/tickets/${encodeURIComponent(ticketId)}/ai/dry-run`)).body.dryRun;
  },
  async sendAiDraft(ticketId: string, draftId: string, authorId: string): Promise<AiTurn> {
    return (await call<{ turn: AiTurn }>('POST', `/api/v1/tickets/${encodeURIComponent(ticketId)}/ai/drafts/${encodeURIComponent(draftId)}/send`, { authorId })).body.turn;
  },
  /** Checks a key before keeping it: any keyed read will do. */
  async checkKey(key: string): Promise<boolean> {
    const res = await fetch('/api/workflows?active=true', { headers: { authorization: `Bearer ${key.trim()}` }, cache: 'no-store' });
    return res.ok;
  },
};

/**
 * Opens the live feed (GET /api/v1/events), resuming after `lastEventId` when given. The key
 * goes in the Authorization header like on every call (an EventSource cannot send one), so
 * the feed is read with fetch as a stream. A refused key signs the tab out as any call does.
 */
export async function openEventStream(lastEventId: string | null, signal: AbortSignal): Promise<Response> {
  const key = apiKey.get();
  const res = await fetch('/api/v1/events', {
    headers: {
      accept: 'text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    cache: 'no-store',
    signal,
  });
  if (res.status === 401) onUnauthorized();
  return res;
}

/** The Temporal Web UI's page of a run, when the server was told where the Web UI is. */
export function temporalRunUrl(runId: string | null | undefined): string | null {
  if (!runId) return null;
  const base = document.querySelector<HTMLMetaElement>('meta[name="deskflow-temporal-ui"]')?.content;
  if (!base || !/^https?:\/\//.test(base)) return null;
  const namespace = document.querySelector<HTMLMetaElement>('meta[name="deskflow-temporal-namespace"]')?.content || 'default';
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(runId)}`;
}
