import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { countTagged, countTickets, type AssigneeKind } from './counts.ts';
import { searchMatches, searchRank } from './search-index.ts';
import { ticketColumns, ticketFromRow, type TicketRecord, type TicketRow } from './store.ts';
import { AI_ASSIGNEE, type TicketPriority, type TicketSource, type TicketStatus } from './values.ts';

/**
 * The ticket list (GET /api/v1/tickets): its filters, sorts and search as hand-written SQL,
 * for the reason given in store.ts. Filters are read on the tickets table, so they are exact the
 * moment a change commits. Page 1 and the exact total stay index-backed at a million tickets
 * (bench/list-section.ts measures each kind): the plain list, the filters on status, priority,
 * source and "no one" or "the AI agent" as assignee, and one tag alone count with the counters
 * (counts.ts); customer emails, member assignees and several tags with their indexes
 * (entity.ts); a search with its matches (search-index.ts).
 */

/** An unassigned ticket, in `assignedTo`. */
export const UNASSIGNED = 'none';

/** Every given filter holds; within one, any of its values (docs/api.md, "Listing and searching"). */
export type TicketFilter = {
  status?: TicketStatus;
  priorities?: TicketPriority[];
  sources?: TicketSource[];
  /** Compared in any letter case. */
  customerEmails?: string[];
  /** User ids, `ai`, or `none` for unassigned. */
  assignedTo?: string[];
  /** The ticket has every one of them. */
  tags?: string[];
  /** Full-text search, in websearch syntax (words, "phrases", or, -word). */
  q?: string;
};

export const TICKET_SORTS = ['created_at', '-created_at', 'updated_at', '-updated_at'] as const;
export type TicketSort = (typeof TICKET_SORTS)[number];

/**
 * With a search and no sort, the best match comes first: the newest this many matches are
 * ranked (ts_rank), the older ones follow them, newest first. A word found in hundreds of
 * thousands of tickets then costs a count and a sort by date of its matches, and the reading
 * and ranking of 2,000 documents, not of each.
 */
export const RANKED_MATCHES = 2_000;

type Page = { limit: number; offset: number };

/** One page of the workspace's tickets that pass `filter`, in `sort` order (default newest first; best match first for a search), and how many pass. */
export async function listTickets(
  em: EntityManager,
  workspaceId: string,
  filter: TicketFilter,
  sort: TicketSort | undefined,
  page: Page,
): Promise<{ tickets: TicketRecord[]; total: number }> {
  if (filter.q !== undefined) return search(em, workspaceId, filter as TicketFilter & { q: string }, sort, page);
  const order = orderBy(sort ?? '-created_at', 't');
  const params: unknown[] = [workspaceId];
  const where = conditions(filter, params, 't');
  const n = params.length;
  const [rows, total] = await Promise.all([
    sql<TicketRow>(em, `select ${ticketColumns('t')} from "tickets" t where ${where} order by ${order} limit $${n + 1} offset $${n + 2}`, [...params, page.limit, page.offset]),
    countMatching(em, workspaceId, filter),
  ]);
  return { tickets: rows.map(ticketFromRow), total };
}

/** The exact number of tickets that pass `filter` (no search): from the counters wherever they tell. */
async function countMatching(em: EntityManager, workspaceId: string, filter: TicketFilter): Promise<number> {
  const counted = { status: filter.status, priorities: filter.priorities, sources: filter.sources };
  const others = Object.entries(filter).filter(([key, v]) => key !== 'tags' && v !== undefined);
  if (filter.tags?.length === 1 && others.length === 0) return countTagged(em, workspaceId, filter.tags[0]);
  if (filter.customerEmails || filter.tags) return countRows(em, workspaceId, filter);
  if (!filter.assignedTo) return countTickets(em, workspaceId, counted);
  // The assignees split into parts no ticket is in twice: kinds the counters tell, and members.
  const kinds: AssigneeKind[] = [];
  if (filter.assignedTo.includes(UNASSIGNED)) kinds.push('none');
  if (filter.assignedTo.includes(AI_ASSIGNEE)) kinds.push('ai');
  const members = filter.assignedTo.filter((a) => a !== UNASSIGNED && a !== AI_ASSIGNEE);
  const [ofKinds, ofMembers] = await Promise.all([
    kinds.length > 0 ? countTickets(em, workspaceId, { ...counted, assignees: kinds }) : 0,
    members.length > 0 ? countRows(em, workspaceId, { ...filter, assignedTo: members }) : 0,
  ]);
  return ofKinds + ofMembers;
}

async function countRows(em: EntityManager, workspaceId: string, filter: TicketFilter): Promise<number> {
  const params: unknown[] = [workspaceId];
  const [row] = await sql<{ total: string }>(em, `select count(*) as "total" from "tickets" t where ${conditions(filter, params, 't')}`, params);
  return Number(row.total);
}

/**
 * A search: the matches of the query (search-index.ts), filtered on the tickets, then one page
 * of them, with their number, in one statement. Without a sort, the newest RANKED_MATCHES
 * matches come first, best match first, and the older ones after them, newest first: only
 * those are ranked, so a word found in most tickets costs a count and a sort by date of its
 * matches, and at most RANKED_MATCHES documents read and ranked.
 */
async function search(em: EntityManager, workspaceId: string, filter: TicketFilter & { q: string }, sort: TicketSort | undefined, page: Page) {
  const params: unknown[] = [workspaceId, filter.q];
  const value = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const { q: _q, ...rest } = filter;
  const filtered = Object.values(rest).some((v) => v !== undefined);
  // The tickets are read for every match only when a filter or the sort needs them.
  const hits =
    filtered || sort === 'updated_at' || sort === '-updated_at'
      ? `select f.*, t."updated_at" from "search_found" f join "tickets" t on t."id" = f."ticket_id" where ${conditions(rest, params, 't')}`
      : `select f.* from "search_found" f`;
  const byDate = (h: string) => `${h}."created_at" desc, ${h}."ticket_id" desc`;
  let pageRows: string;
  if (sort) {
    pageRows = `select h."ticket_id", null::real as "rank", 0 as "part" from "hits" h order by ${orderBy(sort, 'h', 'ticket_id')} limit ${value(page.limit)} offset ${value(page.offset)}`;
  } else {
    // The page is a stretch of [ranked matches…, older matches by date…]: the part of each it takes.
    const end = page.offset + page.limit;
    const ranked = { offset: Math.min(page.offset, RANKED_MATCHES), limit: Math.max(0, Math.min(end, RANKED_MATCHES) - page.offset) };
    const older = { offset: Math.max(page.offset, RANKED_MATCHES), limit: Math.max(0, end - Math.max(page.offset, RANKED_MATCHES)) };
    pageRows = `(select r."ticket_id", r."rank", 0 as "part" from "ranked" r order by r."rank" desc nulls last, ${byDate('r')}
                  limit ${value(ranked.limit)} offset ${value(ranked.offset)})
                union all
                (select h."ticket_id", null, 1 from "hits" h order by ${byDate('h')} limit ${value(older.limit)} offset ${value(older.offset)})`;
  }
  const rows = await sql<TicketRow & { total: string }>(
    em,
    `with ${searchMatches({ workspace: '$1', query: '$2' })},
     "hits" as materialized (${hits}),
     "newest" as (select h.* from "hits" h order by ${byDate('h')} limit ${RANKED_MATCHES}),
     "ranked" as (select n."ticket_id", n."created_at", ${searchRank('n', 's')} as "rank"
                    from "newest" n left join "ticket_search" s on s."ticket_id" = n."ticket_id" and n."rank" is null),
     "page" as (${pageRows})
     select c."total", x.* from (select count(*) as "total" from "hits") c
       left join lateral (select ${ticketColumns('t')}, p."rank", p."part" from "page" p join "tickets" t on t."id" = p."ticket_id") x on true
      order by x."part", ${sort ? orderBy(sort, 'x', 'id') : `x."rank" desc nulls last, x."created_at" desc, x."id" desc`}`,
    params,
  );
  const total = Number(rows[0]?.total ?? 0);
  return { tickets: rows.filter((r) => r.id !== null).map(ticketFromRow), total };
}

/** The WHERE clause of `filter` on the tickets aliased `t`, its values added to `params` ($1 is the workspace). */
function conditions(filter: Omit<TicketFilter, 'q'>, params: unknown[], t: string): string {
  const value = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = [`${t}."workspace_id" = $1`];
  if (filter.status) where.push(`${t}."status" = ${value(filter.status)}`);
  if (filter.priorities) where.push(`${t}."priority" = any(${value(filter.priorities)}::text[])`);
  if (filter.sources) where.push(`${t}."source" = any(${value(filter.sources)}::text[])`);
  // Lower-cased by the database, as the index is: the same letters whatever JavaScript would make of them.
  if (filter.customerEmails) where.push(`lower(${t}."customer_email") = any(array(select lower(e) from unnest(${value(filter.customerEmails)}::text[]) as e))`);
  if (filter.assignedTo) {
    const people = filter.assignedTo.filter((a) => a !== UNASSIGNED);
    const either = [
      ...(people.length > 0 ? [`${t}."assigned_to" = any(${value(people)}::text[])`] : []),
      ...(filter.assignedTo.includes(UNASSIGNED) ? [`${t}."assigned_to" is null`] : []),
    ];
    where.push(either.length === 1 ? either[0] : `(${either.join(' or ')})`);
  }
  // The second condition lets the planner use the partial index of tagged tickets.
  if (filter.tags) where.push(`${t}."tags" @> ${value(filter.tags)}::text[] and ${t}."tags" <> '{}'`);
  return where.join(' and ');
}

/** ORDER BY of a sort on the rows aliased `t` (whose id column is `id`), ties broken by id in the same direction. */
function orderBy(sort: TicketSort, t: string, id = 'id'): string {
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const column = sort.replace('-', '');
  return `${t}."${column}" ${direction}, ${t}."${id}" ${direction}`;
}
