import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql, type Statement } from '../common/sql.ts';
import type { Message } from './entity.ts';

/** The statements of adding a message, written out for the same reason as tickets/store.ts. */

/** A message as written here: the entity's fields, as plain data. */
export type MessageRecord = Pick<Message, 'id' | 'ticket' | 'seq' | 'direction' | 'senderEmail' | 'senderName' | 'body' | 'bodyHtml' | 'createdAt' | 'idempotencyKey'>;

type MessageRow = {
  id: string;
  ticket_id: string;
  seq: number;
  direction: Message['direction'];
  sender_email: string;
  sender_name: string | null;
  body: string;
  body_html: string | null;
  created_at: string | Date;
  idempotency_key: string | null;
};

const COLUMNS = '"id", "ticket_id", "seq", "direction", "sender_email", "sender_name", "body", "body_html", "created_at", "idempotency_key"';

function messageFromRow(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    ticket: r.ticket_id,
    seq: r.seq,
    direction: r.direction,
    senderEmail: r.sender_email,
    senderName: r.sender_name,
    body: r.body,
    bodyHtml: r.body_html,
    createdAt: pgTimestamp(r.created_at),
    idempotencyKey: r.idempotency_key,
  };
}

export function messageInsert(m: MessageRecord): Statement {
  return {
    text: `insert into "messages" (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    parameters: [m.id, m.ticket, m.seq, m.direction, m.senderEmail, m.senderName, m.body, m.bodyHtml, m.createdAt, m.idempotencyKey],
  };
}

/** The message written earlier under this idempotency key (a retried workflow reply), if any. */
export async function messageByIdempotencyKey(em: EntityManager, key: string): Promise<MessageRecord | null> {
  const [row] = await sql<MessageRow>(em, `select ${COLUMNS} from "messages" where "idempotency_key" = $1`, [key]);
  return row ? messageFromRow(row) : null;
}
