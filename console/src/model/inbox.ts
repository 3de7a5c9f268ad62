// The inbox: which tickets a view shows (its filter), the query that asks the API for them, the
// views every agent has and the ones they saved, and whether a ticket that just changed still
// belongs in the list shown. Pure: the storage's text, the agent ("who am I") and the clock are
// passed in. Unit-tested in test/unit/console/inbox.test.ts.

import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../../src/graph/index.ts';
import type { Ticket } from '../api-types.ts';

export const STATUSES: readonly string[] = TICKET_STATUSES;
export const PRIORITIES: readonly string[] = TICKET_PRIORITIES;
/** Where tickets come from (docs/contract.md, the Ticket's `source`). */
export const SOURCES: readonly string[] = ['email', 'widget', 'api'];
export const SORTS = ['-created_at', 'created_at', '-updated_at', 'updated_at'] as const;
export type Sort = (typeof SORTS)[number];

/** Stands for the agent using the console in a view's filter, so "mine" stays theirs whoever opens it. */
export const ME = '@me';
/** The API's assignee values for "nobody" and for the AI agent. */
export const UNASSIGNED = 'none';
export const AI = 'ai';

/**
 * What a list shows: the API's ticket filters (docs/api.md). Lists of values are ORed, the
 * filters ANDed; `status` is one value, as the API takes it. Empty means "any".
 */
export type TicketFilter = {
  q?: string;
  status?: string;
  assignedTo?: string[];
  priority?: string[];
  tag?: string[];
  customerEmail?: string[];
  source?: string[];
  sort?: Sort;
};

export type View = { id: string; name: string; filter: TicketFilter; saved: boolean };

/** The views every agent has, in the order the inbox lists them. */
export const BUILT_IN_VIEWS: readonly View[] = [
  { id: 'unassigned', name: 'Unassigned', filter: { assignedTo: [UNASSIGNED] }, saved: false },
  { id: 'mine', name: 'Mine', filter: { assignedTo: [ME] }, saved: false },
  { id: 'open', name: 'All open', filter: { status: 'open' }, saved: false },
  { id: 'pending', name: 'Pending', filter: { status: 'pending' }, saved: false },
];
export const DEFAULT_VIEW = 'unassigned';

const LISTS = ['assignedTo', 'priority', 'tag', 'customerEmail', 'source'] as const;
type ListKey = (typeof LISTS)[number];
/** The API's name of each filter. */
const PARAM: Record<ListKey | 'q' | 'status' | 'sort', string> = {
  q: 'q',
  status: 'status',
  assignedTo: 'assigned_to',
  priority: 'priority',
  tag: 'tag',
  customerEmail: 'customer_email',
  source: 'source',
  sort: 'sort',
};

/**
 * The query string of GET /api/v1/tickets for `filter` (repeated parameters for lists), as
 * the agent `me`; null when the filter names the agent and nobody chose who they are yet.
 */
export function ticketQuery(filter: TicketFilter, me: string | null, page: { page: number; perPage: number }): string | null {
  const params = new URLSearchParams();
  const q = filter.q?.trim();
  if (q) params.append(PARAM.q, q);
  if (filter.status) params.append(PARAM.status, filter.status);
  for (const key of LISTS) {
    for (const value of filter[key] ?? []) {
      if (value === ME && !me) return null;
      params.append(PARAM[key], value === ME ? me! : value);
    }
  }
  if (filter.sort) params.append(PARAM.sort, filter.sort);
  params.append('page', String(page.page));
  params.append('per_page', String(page.perPage));
  return params.toString();
}

/** Whether a filter narrows anything (an empty one lists every ticket). */
export function isEmptyFilter(filter: TicketFilter): boolean {
  return !filter.q?.trim() && !filter.status && !filter.sort && LISTS.every((k) => (filter[k] ?? []).length === 0);
}

/** `filter` without empty lists and blank text: what is saved and compared. */
export function normalFilter(filter: TicketFilter): TicketFilter {
  const out: TicketFilter = {};
  const q = filter.q?.trim();
  if (q) out.q = q;
  if (filter.status && STATUSES.includes(filter.status)) out.status = filter.status;
  for (const key of LISTS) {
    const values = [...new Set((filter[key] ?? []).map((v) => v.trim()).filter(Boolean))];
    if (values.length > 0) out[key] = values;
  }
  if (filter.sort && (SORTS as readonly string[]).includes(filter.sort)) out.sort = filter.sort;
  return out;
}

export function sameFilter(a: TicketFilter, b: TicketFilter): boolean {
  return JSON.stringify(canonical(normalFilter(a))) === JSON.stringify(canonical(normalFilter(b)));
}

function canonical(filter: TicketFilter): unknown {
  return Object.entries(filter)
    .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v])
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

/**
 * Whether `ticket` belongs in a list of `filter` as the agent `me`; undefined when the page
 * cannot tell (a text search: only the server knows what matches it).
 */
export function matchesFilter(ticket: Ticket, filter: TicketFilter, me: string | null): boolean | undefined {
  if (filter.q?.trim()) return undefined;
  if (filter.status && ticket.status !== filter.status) return false;
  const anyOf = (values: string[] | undefined, test: (v: string) => boolean) => !values || values.length === 0 || values.some(test);
  const assignee = (v: string) => (v === UNASSIGNED ? ticket.assignedTo === null : ticket.assignedTo === (v === ME ? me : v));
  return (
    anyOf(filter.assignedTo, assignee) &&
    anyOf(filter.priority, (v) => ticket.priority === v) &&
    anyOf(filter.source, (v) => ticket.source === v) &&
    anyOf(filter.customerEmail, (v) => ticket.customerEmail.toLowerCase() === v.toLowerCase()) &&
    (filter.tag ?? []).every((t) => ticket.tags.includes(t))
  );
}

// ---------------------------------------------------------------------------------------
// Saved views: kept in this browser (localStorage), per workspace key

/** The storage key of the views saved with an API key: by its public part (`dfk_<lookup>`), never the secret. */
export function savedViewsKey(apiKey: string): string {
  const publicPart = /^(dfk_[0-9a-f]+)_/.exec(apiKey.trim())?.[1] ?? 'unknown';
  return `deskflow.views.${publicPart}`;
}

/** The saved views in `stored` (what localStorage holds); whatever is not a view is left out. */
export function parseSavedViews(stored: string | null): View[] {
  if (!stored) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const views: View[] = [];
  for (const item of raw) {
    if (!item || typeof item !== 'object') continue;
    const { id, name, filter } = item as Record<string, unknown>;
    if (typeof id !== 'string' || typeof name !== 'string' || name.trim() === '' || !filter || typeof filter !== 'object') continue;
    if (views.some((v) => v.id === id)) continue;
    views.push({ id, name: name.trim(), filter: normalFilter(textLists(filter as Record<string, unknown>)), saved: true });
  }
  return views;
}

/** Only the string values and string lists of a stored filter. */
function textLists(raw: Record<string, unknown>): TicketFilter {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  return {
    q: text(raw.q),
    status: text(raw.status),
    sort: text(raw.sort) as Sort | undefined,
    ...Object.fromEntries(LISTS.map((k) => [k, list(raw[k])])),
  };
}

export function serializeSavedViews(views: View[]): string {
  return JSON.stringify(views.filter((v) => v.saved).map(({ id, name, filter }) => ({ id, name, filter: normalFilter(filter) })));
}

/** The views after saving `filter` as `name`: a view of that name is replaced, else one is added. */
export function saveView(views: View[], name: string, filter: TicketFilter, newId: string): { views: View[]; id: string } {
  const trimmed = name.trim();
  const existing = views.find((v) => v.name.toLowerCase() === trimmed.toLowerCase());
  const id = existing?.id ?? `saved-${newId}`;
  const view: View = { id, name: trimmed, filter: normalFilter(filter), saved: true };
  return { views: existing ? views.map((v) => (v.id === id ? view : v)) : [...views, view], id };
}

export function removeView(views: View[], id: string): View[] {
  return views.filter((v) => v.id !== id);
}

// ---------------------------------------------------------------------------------------
// What a row shows

/** A ticket's age for a list: `45 s`, `12 min`, `3 h`, `4 d`, `7 w`. */
export function age(createdAt: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(createdAt)) / 1000));
  if (!Number.isFinite(s)) return '';
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  if (s < 14 * 86_400) return `${Math.floor(s / 86_400)} d`;
  return `${Math.floor(s / (7 * 86_400))} w`;
}

/** Who a ticket is assigned to, for people. */
export function assigneeLabel(assignedTo: string | null, me: string | null): string {
  if (assignedTo === null) return 'unassigned';
  if (assignedTo === AI) return 'AI agent';
  return assignedTo === me ? `${assignedTo} (you)` : assignedTo;
}
