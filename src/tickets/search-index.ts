import { defineEntity, p } from '@mikro-orm/core';
import { FullTextType, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import type { EventType } from '../events/entity.ts';
import { Ticket } from './entity.ts';

/**
 * The full-text search of the ticket list (`GET /api/v1/tickets?q=`, docs/api.md "Searching").
 *
 * Each ticket has a stored document: its subject (weight A) and the bodies of its messages
 * (weight B), in the text search configuration `simple` (words as written, lower-cased, no
 * stemming and no stop words, so that every language is found alike). The outbox relay
 * rebuilds the documents of the tickets its events name, set-based, in the transaction that
 * claims them (src/triggers/event-delivery.ts), so creating a ticket or adding a message costs
 * nothing more. Until that event is delivered, a search computes the ticket's document on the
 * spot (searchMatches), so a ticket is found from the moment its write commits.
 */
const TicketSearchSchema = defineEntity({
  name: 'TicketSearch',
  tableName: 'ticket_search',
  properties: {
    ticket: () => p.oneToOne(Ticket).mapToPk().primary().fieldName('ticket_id').deleteRule('cascade').owner(),
    workspaceId: p.uuid(),
    /** The ticket's, so that matches are ordered and ranked without reading the tickets. */
    createdAt: p.datetime(3),
    /** The ticket's message_seq the document was built at: an older build never replaces a newer one. */
    messageSeq: p.integer(),
    document: p.type(new FullTextType('simple')),
  },
  indexes: [{ name: 'ticket_search_document_idx', expression: 'create index "ticket_search_document_idx" on "ticket_search" using gin ("document")' }],
});
export class TicketSearch extends TicketSearchSchema.class {}
TicketSearchSchema.setClass(TicketSearch);

/** The text search configuration of documents and queries. */
export const SEARCH_CONFIG = 'simple';

/** Events whose delivery rebuilds their ticket's document: those that change its text. */
export const TEXT_EVENTS: readonly EventType[] = ['ticket_created', 'message_received', 'message_added'];

/** Of a ticket's messages, the document holds the first and the newest 24, each up to 4,000 characters. */
export const DOCUMENT_LIMITS = { newestMessages: 24, charactersPerMessage: 4_000 } as const;

/**
 * The document of the ticket aliased `t`, as SQL. At most 25 × 4,000 characters of bodies and a
 * 500-character subject: well under tsvector's 1 MB, whatever the text.
 */
export function documentOf(t: string): string {
  return (
    `setweight(to_tsvector('${SEARCH_CONFIG}', ${t}."subject"), 'A') || setweight(to_tsvector('${SEARCH_CONFIG}', coalesce((` +
    `select string_agg(left(m."body", ${DOCUMENT_LIMITS.charactersPerMessage}), ' ' order by m."seq") from "messages" m ` +
    `where m."ticket_id" = ${t}."id" and (m."seq" = 1 or m."seq" > ${t}."message_seq" - ${DOCUMENT_LIMITS.newestMessages})), '')), 'B')`
  );
}

/**
 * Rebuilds the documents of these tickets in one statement (the relay, for the events it
 * claims). A document built from an older state of the ticket (another relay's, which read it
 * before the newest message committed) never replaces a newer one. In ticket order, so that
 * relays rebuilding the same tickets take their rows in the same order.
 */
export async function rebuildSearchDocuments(em: EntityManager, ticketIds: string[]): Promise<void> {
  if (ticketIds.length === 0) return;
  await sql(
    em,
    `insert into "ticket_search" as s ("ticket_id", "workspace_id", "created_at", "message_seq", "document")
     select t."id", t."workspace_id", t."created_at", t."message_seq", ${documentOf('t')}
       from "tickets" t where t."id" = any($1::uuid[]) order by t."id"
     on conflict ("ticket_id") do update set "message_seq" = excluded."message_seq", "document" = excluded."document"
      where s."message_seq" <= excluded."message_seq"`,
    [ticketIds],
  );
}

/**
 * Rebuilds every stale document (`npm run admin -- search rebuild`): a ticket without one, or
 * whose document is older than its newest message, as events a worker of an older release
 * delivered leave them (docs/operations.md, "Upgrading Deskflow"), or a partial restore. Walks
 * the tickets (of one workspace, or all) in id order, `batch` at a time, each batch one read and
 * at most one rebuild, so that it runs beside a working desk. Answers how many it looked at and
 * how many it rebuilt.
 */
export async function rebuildStaleSearchDocuments(em: EntityManager, opts: { workspaceId?: string; batch?: number } = {}): Promise<{ checked: number; rebuilt: number }> {
  const batch = opts.batch ?? 1_000;
  let after = '00000000-0000-0000-0000-000000000000';
  let checked = 0;
  let rebuilt = 0;
  for (;;) {
    const rows = await sql<{ id: string; stale: boolean }>(
      em,
      `select t."id", s."ticket_id" is null or s."message_seq" < t."message_seq" as "stale"
         from "tickets" t left join "ticket_search" s on s."ticket_id" = t."id"
        where t."id" > $1${opts.workspaceId ? ' and t."workspace_id" = $3' : ''}
        order by t."id" limit $2`,
      opts.workspaceId ? [after, batch, opts.workspaceId] : [after, batch],
    );
    if (rows.length === 0) return { checked, rebuilt };
    const stale = rows.filter((r) => r.stale).map((r) => r.id);
    await rebuildSearchDocuments(em, stale);
    checked += rows.length;
    rebuilt += stale.length;
    after = rows[rows.length - 1].id;
  }
}

/**
 * WITH clauses that find the workspace's tickets matching a search, as `search_found`
 * (`ticket_id`, `created_at`, `rank`), with the query as `search_query`: through the stored
 * documents (GIN), except for tickets whose text-changing events are not yet delivered, whose
 * documents are computed here from the ticket as it is, and ranked at once (`rank` is null for
 * the others: searchRank ranks those a page needs, without reading every match's document).
 * `workspace` and `query` name the statement's parameters ($1, …) of the workspace id and of
 * the search text (websearch syntax).
 */
export function searchMatches(params: { workspace: string; query: string }): string {
  const { workspace, query } = params;
  return `"search_query" as (select websearch_to_tsquery('${SEARCH_CONFIG}', ${query}) as "query"),
  "search_pending" as (
    select distinct e."ticket_id" from "outbox_events" e
     where e."delivered_at" is null and e."workspace_id" = ${workspace} and e."ticket_id" is not null
       and e."type" in (${TEXT_EVENTS.map((t) => `'${t}'`).join(', ')})),
  "search_found" as (
    select s."ticket_id", s."created_at", null::real as "rank" from "ticket_search" s, "search_query" q
     where s."workspace_id" = ${workspace} and s."document" @@ q."query"
       and not exists (select 1 from "search_pending" x where x."ticket_id" = s."ticket_id")
    union all
    select t."id", t."created_at", ts_rank(d."document", q."query")
      from "search_pending" x join "tickets" t on t."id" = x."ticket_id" and t."workspace_id" = ${workspace}
      cross join lateral (select ${documentOf('t')} as "document") d, "search_query" q
     where d."document" @@ q."query")`;
}

/** The rank of a match of `search_found` (aliased `m`) in the rows aliased `s` of "ticket_search" joined to it where its rank is null. */
export const searchRank = (m: string, s: string) => `coalesce(${m}."rank", ts_rank(${s}."document", (select "query" from "search_query")))`;
