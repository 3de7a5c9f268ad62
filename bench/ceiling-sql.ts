import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { combined, type Statement } from '../src/common/sql.ts';
import { presentMessage } from '../src/messages/presenter.ts';
import type { TicketRecord } from '../src/tickets/store.ts';
import * as ticketPresenter from '../src/tickets/presenter.ts';
import { parseKey, secretMatches } from '../src/workspaces/keys.ts';

/**
 * The SQL Deskflow runs for each benchmarked request, statement for statement and in the same
 * order and transactions, run straight through `pg`: the ceilings the API is compared with.
 * Read off PostgreSQL with `log_statement=all` (MikroORM inlines the values; here they are
 * parameters). When a service changes its queries, change them here too, or the ratios stop
 * meaning "Deskflow vs its own SQL without the framework"; test/bench/ceiling-sql.test.ts
 * fails until they match again.
 *
 */

export type NewTicket = {
  subject: string;
  customerEmail: string;
  customerName?: string | null;
  body: string;
  source?: string;
  language?: string;
};

export type NewMessage = { body: string; senderEmail: string; senderName?: string | null };

type TicketRow = {
  id: string;
  workspace_id: string;
  subject: string;
  status: string;
  priority: string;
  customer_email: string;
  customer_name: string | null;
  source: string;
  assigned_to: string | null;
  resolution_type: string | null;
  tags: string[];
  language: string | null;
  message_seq: number;
  created_at: Date;
  updated_at: Date;
};

/**
 * The API keeps keys it has seen in memory (src/workspaces/key-cache.ts): after the first
 * request of a key no statement is sent for it. The ceiling checks the key the same way, in memory.
 */
const knownKeys = new Map<string, { workspaceId: string; secretHash: string }>();

export async function authenticate(db: pg.Pool, presented: string): Promise<string | null> {
  const parsed = parseKey(presented);
  if (!parsed) return null;
  let key = knownKeys.get(parsed.lookup);
  if (!key) {
    const { rows } = await db.query<{ workspace_id: string; secret_hash: string; revoked_at: Date | null }>(
      'select "a0"."id", "a0"."workspace_id", "a0"."secret_hash", "a0"."revoked_at" from "api_keys" as "a0" where "a0"."lookup" = $1 limit 1',
      [parsed.lookup],
    );
    if (!rows[0] || rows[0].revoked_at) return null;
    key = { workspaceId: rows[0].workspace_id, secretHash: rows[0].secret_hash };
    knownKeys.set(parsed.lookup, key);
  }
  return secretMatches(parsed.secret, key.secretHash) ? key.workspaceId : null;
}

const TICKET_COLUMNS =
  '"id", "workspace_id", "subject", "status", "priority", "customer_email", "customer_name", "source", "assigned_to", "resolution_type", "tags", "language", "message_seq", "created_at", "updated_at"';
const ALIASED_TICKET_COLUMNS = TICKET_COLUMNS.split(', ')
  .map((c) => `t.${c}`)
  .join(', ');
const MESSAGE_COLUMNS = '"id", "ticket_id", "seq", "direction", "sender_email", "sender_name", "body", "body_html", "created_at", "idempotency_key"';

/** TicketService.create: the ticket, its first message and the ticket_created event in one statement. */
export async function createTicket(db: pg.Pool, workspaceId: string, input: NewTicket): Promise<TicketRow> {
  const now = new Date();
  const ticket: TicketRow = {
    id: randomUUID(),
    workspace_id: workspaceId,
    subject: input.subject,
    status: 'open',
    priority: 'medium',
    customer_email: input.customerEmail,
    customer_name: input.customerName?.trim() ? input.customerName : null,
    source: input.source ?? 'api',
    assigned_to: null,
    resolution_type: null,
    tags: [],
    language: input.language ?? null,
    message_seq: 1,
    created_at: now,
    updated_at: now,
  };
  await run(db, [
    {
      text: `insert into "tickets" (${TICKET_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      parameters: [ticket.id, workspaceId, ticket.subject, ticket.status, ticket.priority, ticket.customer_email, ticket.customer_name, ticket.source, null, null, ticket.tags, ticket.language, 1, now, now],
    },
    {
      text: `insert into "messages" (${MESSAGE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      parameters: [randomUUID(), ticket.id, 1, 'inbound', input.customerEmail, ticket.customer_name, input.body, null, now, null],
    },
    eventInsert(workspaceId, 'ticket_created', ticket.id, { ticket: ticketContext(ticket), cause: null }, now),
  ]);
  wakeRelays(db);
  return ticket;
}

/** TicketService.list without filters (src/tickets/list.ts): one page, newest first, and the total from the counters, at once. */
export async function listTickets(db: pg.Pool, workspaceId: string, page: number, perPage: number): Promise<{ tickets: TicketRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.query<TicketRow>(`select ${ALIASED_TICKET_COLUMNS} from "tickets" t where t."workspace_id" = $1 order by t."created_at" desc, t."id" desc limit $2 offset $3`, [
      workspaceId,
      perPage,
      (page - 1) * perPage,
    ]),
    db.query<{ total: string | null }>('select sum("count") as "total" from "ticket_counts" where "workspace_id" = $1', [workspaceId]),
  ]);
  return { tickets: rows.rows, total: Number(count.rows[0].total ?? 0) };
}

/** TicketService.get. */
export async function getTicket(db: pg.Pool | pg.PoolClient, workspaceId: string, ticketId: string, forUpdate = false): Promise<TicketRow | null> {
  const { rows } = await db.query<TicketRow>(`select ${TICKET_COLUMNS} from "tickets" where "id" = $1 and "workspace_id" = $2${forUpdate ? ' for update' : ''}`, [ticketId, workspaceId]);
  return rows[0] ?? null;
}

/**
 * POST …/messages: the route reads the ticket, then MessageService.add locks it and, in one
 * statement, bumps its sequence and writes the message and the message_received event. The
 * sender is the ticket's customer and the ticket is open, so no reopening happens.
 */
export async function addMessage(db: pg.Pool, workspaceId: string, ticketId: string, input: NewMessage) {
  if (!(await getTicket(db, workspaceId, ticketId))) return null;
  const added = await transaction(db, async (client) => {
    const ticket = await getTicket(client, workspaceId, ticketId, true);
    if (!ticket) return null;
    const now = new Date();
    ticket.message_seq += 1;
    ticket.updated_at = now;
    const message = {
      id: randomUUID(),
      ticket: ticketId,
      seq: ticket.message_seq,
      direction: 'inbound',
      senderEmail: input.senderEmail,
      senderName: input.senderName?.trim() ? input.senderName : null,
      body: input.body,
      bodyHtml: null,
      createdAt: now,
      idempotencyKey: null,
    } as const;
    await run(client, [
      {
        text: 'update "tickets" set "message_seq" = $2, "updated_at" = $3, "status" = $4, "resolution_type" = $5 where "id" = $1',
        parameters: [ticketId, ticket.message_seq, now, ticket.status, ticket.resolution_type],
      },
      {
        text: `insert into "messages" (${MESSAGE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        parameters: [message.id, ticketId, message.seq, 'inbound', message.senderEmail, message.senderName, message.body, null, now, null],
      },
      eventInsert(workspaceId, 'message_received', ticketId, { ticket: ticketContext(ticket), message: presentMessage(message), cause: null }, now),
    ]);
    return presentMessage(message);
  });
  if (added) wakeRelays(db);
  return added;
}

/** The outbox row, its payload as Deskflow writes it (eventsInsert). */
function eventInsert(workspaceId: string, type: string, ticketId: string, payload: unknown, at: Date): Statement {
  return {
    text: 'insert into "outbox_events" ("id", "workspace_id", "type", "ticket_id", "payload", "created_at", "attempts") values ($1, $2, $3, $4, $5, $6, 0)',
    parameters: [randomUUID(), workspaceId, type, ticketId, JSON.stringify(payload), at],
  };
}

/** Writes of one change as Deskflow sends them (writeTogether): one statement. */
async function run(db: pg.Pool | pg.PoolClient, statements: Statement[]): Promise<void> {
  const { text, parameters } = combined(statements);
  await db.query(text, parameters);
}

/**
 * A pool of the ceiling's connections, set up as Deskflow's (src/db/orm.ts): the outbox's
 * trigger leaves the relays' wake-up to the writer, which sends it after the commit.
 */
export function ceilingPool(connectionString: string, max: number, queryTimeoutMs?: number): pg.Pool {
  return new pg.Pool({ connectionString, max, query_timeout: queryTimeoutMs, options: '-c deskflow.outbox_notify=after-commit' });
}

/** CommitSignals: once new events committed, one NOTIFY at a time; one more when commits came during a send. */
const wakeups = { sending: false, again: false };
function wakeRelays(db: pg.Pool): void {
  if (wakeups.sending) {
    wakeups.again = true;
    return;
  }
  wakeups.sending = true;
  void (async () => {
    do {
      wakeups.again = false;
      await db.query(`select pg_notify($1, '')`, ['deskflow_outbox']).catch(() => {});
    } while (wakeups.again);
    wakeups.sending = false;
  })();
}

async function transaction<T>(db: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A row as the entity the ORM would hydrate, so that answers and event payloads go through
 * Deskflow's own presenters, as in the API.
 */
function asTicket(t: TicketRow): TicketRecord {
  return {
    id: t.id,
    workspace: t.workspace_id,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    customerEmail: t.customer_email,
    customerName: t.customer_name,
    source: t.source,
    assignedTo: t.assigned_to,
    resolutionType: t.resolution_type,
    tags: t.tags,
    language: t.language,
    messageSeq: t.message_seq,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  } as TicketRecord;
}

/** The public ticket, as the API answers. */
export const presentTicket = (t: TicketRow) => ticketPresenter.presentTicket(asTicket(t));
export const presentCreatedTicket = (t: TicketRow) => ticketPresenter.presentCreatedTicket(asTicket(t));
/** What events carry as `ticket` (Deskflow's ticketContext): the public ticket and its language. */
const ticketContext = (t: TicketRow) => ({ ...presentTicket(t), language: t.language ?? null });
