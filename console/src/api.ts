// The console's client of Deskflow's public API. The API key lives in this tab's
// sessionStorage only: never in a URL, a cookie or localStorage, and it is gone when the tab is.

import type { TriggerType, WorkflowGraph } from '../../src/graph/index.ts';
import { ApiError, type AiDryRun, type AiSettings, type AiSettingsPatch, type AiTurn, type Approval, type ApprovalStatus, type ArticleInput, type KnowledgeArticle, type KnowledgeSearchResult, type Backtest, type Calendar, type CalendarInput, type DryRun, type DryRunInput, type Execution, type Member, type Message, type Ticket, type Workflow, type WorkflowListItem, type WorkflowPatch } from './api-types.ts';
import type { Issue } from './model/issues.ts';

export { ApiError } from './api-types.ts';
export type { AiDryRun, AiSettings, AiSettingsPatch, AiTurn, Approval, ApprovalStatus, ArticleInput, KnowledgeArticle, KnowledgeSearchResult, Backtest, Calendar, CalendarInput, DryRun, DryRunInput, Execution, Member, Message, Ticket, Workflow, WorkflowListItem, WorkflowPatch } from './api-types.ts';

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
  async listTickets(opts: { page?: number; perPage?: number; status?: string } = {}): Promise<{ data: Ticket[]; pagination: { page: number; perPage: number; total: number } }> {
    return (await call<{ data: Ticket[]; pagination: { page: number; perPage: number; total: number } }>('GET', `/api/v1/tickets${query({ page: opts.page, per_page: opts.perPage, status: opts.status })}`)).body;
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

/** The Temporal Web UI's page of a run, when the server was told where the Web UI is. */
export function temporalRunUrl(runId: string | null | undefined): string | null {
  if (!runId) return null;
  const base = document.querySelector<HTMLMetaElement>('meta[name="deskflow-temporal-ui"]')?.content;
  if (!base || !/^https?:\/\//.test(base)) return null;
  const namespace = document.querySelector<HTMLMetaElement>('meta[name="deskflow-temporal-namespace"]')?.content || 'default';
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(runId)}`;
}
