// Hash routes (#/workflows/…): the server serves one page at /console, and an address with a
// route can be bookmarked or opened in a second tab. Leaving a page with unsaved changes asks first.
import { useEffect, useState } from 'react';

export type Route =
  | { page: 'workflows' }
  | { page: 'editor'; workflowId: string }
  | { page: 'runs'; workflowId: string }
  | { page: 'run'; workflowId: string; executionId: string }
  /** The inbox, on a view (null: the one shown last, else the default); `search`: with the search box focused. */
  | { page: 'inbox'; view: string | null; search?: boolean }
  | { page: 'ticket'; ticketId: string }
  | { page: 'calendars' }
  | { page: 'calendar'; calendarId: string | null }
  | { page: 'approvals' }
  | { page: 'sla' }
  | { page: 'slaPolicy'; policyId: string | null }
  | { page: 'slaQueue' }
  | { page: 'knowledge' }
  | { page: 'article'; articleId: string | null }
  | { page: 'ai' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'workflows' && parts[1]) {
    if (parts[2] === 'runs' && parts[3]) return { page: 'run', workflowId: parts[1], executionId: parts[3] };
    if (parts[2] === 'runs') return { page: 'runs', workflowId: parts[1] };
    return { page: 'editor', workflowId: parts[1] };
  }
  if (parts[0] === 'tickets' && parts[1]) return { page: 'ticket', ticketId: parts[1] };
  // The list of tickets that was at #/tickets is the inbox now.
  if (parts[0] === 'tickets' || parts[0] === 'inbox') return { page: 'inbox', view: parts[0] === 'inbox' ? (parts[1] ?? null) : null };
  if (parts[0] === 'search') return { page: 'inbox', view: null, search: true };
  if (parts[0] === 'calendars' && parts[1]) return { page: 'calendar', calendarId: parts[1] === 'new' ? null : parts[1] };
  if (parts[0] === 'calendars') return { page: 'calendars' };
  if (parts[0] === 'approvals') return { page: 'approvals' };
  if (parts[0] === 'sla' && parts[1] === 'queue') return { page: 'slaQueue' };
  if (parts[0] === 'sla' && parts[1]) return { page: 'slaPolicy', policyId: parts[1] === 'new' ? null : parts[1] };
  if (parts[0] === 'sla') return { page: 'sla' };
  if (parts[0] === 'knowledge' && parts[1]) return { page: 'article', articleId: parts[1] === 'new' ? null : parts[1] };
  if (parts[0] === 'knowledge') return { page: 'knowledge' };
  if (parts[0] === 'ai') return { page: 'ai' };
  return { page: 'workflows' };
}

export const href = {
  workflows: () => '#/workflows',
  editor: (id: string) => `#/workflows/${encodeURIComponent(id)}`,
  runs: (id: string) => `#/workflows/${encodeURIComponent(id)}/runs`,
  run: (id: string, executionId: string) => `#/workflows/${encodeURIComponent(id)}/runs/${encodeURIComponent(executionId)}`,
  inbox: (view?: string) => (view ? `#/inbox/${encodeURIComponent(view)}` : '#/inbox'),
  /** The inbox with its search box focused (the / key on a ticket's page). */
  search: () => '#/search',
  ticket: (id: string) => `#/tickets/${encodeURIComponent(id)}`,
  calendars: () => '#/calendars',
  newCalendar: () => '#/calendars/new',
  calendar: (id: string) => `#/calendars/${encodeURIComponent(id)}`,
  approvals: () => '#/approvals',
  sla: () => '#/sla',
  newSlaPolicy: () => '#/sla/new',
  slaPolicy: (id: string) => `#/sla/${encodeURIComponent(id)}`,
  slaQueue: () => '#/sla/queue',
  knowledge: () => '#/knowledge',
  newArticle: () => '#/knowledge/new',
  article: (id: string) => `#/knowledge/${encodeURIComponent(id)}`,
  ai: () => '#/ai',
};

/** Set by a page with unsaved changes: returns true when leaving is fine. */
let leaveGuard: (() => boolean) | null = null;
export function guardLeaving(guard: (() => boolean) | null): void {
  leaveGuard = guard;
}

/**
 * While `dirty`, leaving for another page of the console asks `question` first; with
 * `closingTab`, so does closing the tab or reloading it (the browser words that question).
 */
export function useLeaveGuard(dirty: boolean, question: string, { closingTab = false } = {}): void {
  useEffect(() => {
    if (!dirty) return;
    guardLeaving(() => window.confirm(question));
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    if (closingTab) window.addEventListener('beforeunload', beforeUnload);
    return () => {
      guardLeaving(null);
      if (closingTab) window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty, question, closingTab]);
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    let current = location.hash;
    const onChange = () => {
      if (location.hash === current) return;
      if (leaveGuard && !leaveGuard()) {
        history.replaceState(null, '', current || '#/workflows');
        return;
      }
      current = location.hash;
      setHash(current);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return parseRoute(hash);
}

export function navigate(to: string): void {
  location.hash = to;
}
