import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql, type Statement } from '../common/sql.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Ticket } from './entity.ts';

/**
 * The statements of the ticket paths every request takes (read one, list a page, create),
 * written out: these run on every request, where the ORM's query building and hydration cost
 * several times the statement (measured by `npm run bench`). The Ticket entity stays the
 * schema and the model of everything else.
 */

/** A ticket as read or written here: the entity's fields, as plain data. */
export type TicketRecord = Pick<
  Ticket,
  | 'id'
  | 'workspace'
  | 'subject'
  | 'status'
  | 'priority'
  | 'customerEmail'
  | 'customerName'
  | 'source'
  | 'assignedTo'
  | 'resolutionType'
  | 'tags'
  | 'language'
  | 'messageSeq'
  | 'createdAt'
  | 'updatedAt'
>;

export type TicketRow = {
  id: string;
  workspace_id: string;
  subject: string;
  status: Ticket['status'];
  priority: Ticket['priority'];
  customer_email: string;
  customer_name: string | null;
  source: Ticket['source'];
  assigned_to: string | null;
  resolution_type: Ticket['resolutionType'];
  tags: string[];
  language: string | null;
  message_seq: number;
  created_at: string | Date;
  updated_at: string | Date;
};

const COLUMN_NAMES = [
  'id',
  'workspace_id',
  'subject',
  'status',
  'priority',
  'customer_email',
  'customer_name',
  'source',
  'assigned_to',
  'resolution_type',
  'tags',
  'language',
  'message_seq',
  'created_at',
  'updated_at',
] as const;
/** The ticket columns, unaliased. */
export const TICKET_COLUMNS = COLUMN_NAMES.map((c) => `"${c}"`).join(', ');

const COLUMNS = TICKET_COLUMNS;

/** The columns of a TicketRow, of the table aliased `alias`. */
export const ticketColumns = (alias: string): string => COLUMN_NAMES.map((c) => `${alias}."${c}"`).join(', ');

export function ticketFromRow(r: TicketRow): TicketRecord {
  return {
    id: r.id,
    workspace: r.workspace_id,
    subject: r.subject,
    status: r.status,
    priority: r.priority,
    customerEmail: r.customer_email,
    customerName: r.customer_name,
    source: r.source,
    assignedTo: r.assigned_to,
    resolutionType: r.resolution_type,
    tags: r.tags,
    language: r.language,
    messageSeq: r.message_seq,
    createdAt: pgTimestamp(r.created_at),
    updatedAt: pgTimestamp(r.updated_at),
  };
}

/** The ticket if it belongs to the workspace (locked for update with `forUpdate`); 404 otherwise, malformed ids included. */
export async function readTicket(em: EntityManager, workspaceId: string, ticketId: string, opts: { forUpdate?: boolean } = {}): Promise<TicketRecord> {
  const [row] = isUuid(ticketId)
    ? await sql<TicketRow>(em, `select ${TICKET_COLUMNS} from "tickets" where "id" = $1 and "workspace_id" = $2${opts.forUpdate ? ' for update' : ''}`, [ticketId, workspaceId])
    : [];
  if (!row) throw notFound('Ticket');
  return ticketFromRow(row);
}

/** The insert of a new ticket (written with its first message and event: src/tickets/service.ts, create). */
export function ticketInsert(t: TicketRecord): Statement {
  return {
    text: `insert into "tickets" (${TICKET_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    parameters: [
      t.id,
      t.workspace,
      t.subject,
      t.status,
      t.priority,
      t.customerEmail,
      t.customerName,
      t.source,
      t.assignedTo,
      t.resolutionType,
      t.tags,
      t.language,
      t.messageSeq,
      t.createdAt,
      t.updatedAt,
    ],
  };
}

/**
 * Writes back what a change can change (src/tickets/service.ts, update): the only statement that
 * changes a ticket's tags, which TicketService writes with the tag counters (counts.ts).
 */
export function ticketUpdate(t: TicketRecord): Statement {
  return {
    text: 'update "tickets" set "status" = $2, "priority" = $3, "assigned_to" = $4, "resolution_type" = $5, "tags" = $6, "updated_at" = $7 where "id" = $1',
    parameters: [t.id, t.status, t.priority, t.assignedTo, t.resolutionType, t.tags, t.updatedAt],
  };
}
