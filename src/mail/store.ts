import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import { Mailbox, type DeliveryStatus, type ReceiptOutcome } from './entity.ts';
import type { SmtpEndpoint } from './urls.ts';

/**
 * Every statement of the mail module on its tables (mailboxes, mail_receipts, mail_messages,
 * mail_deliveries), and the ticket look-ups that threading needs: the one place to read what
 * mail does to the database. Each takes the EntityManager whose transaction it joins. The
 * importer, watcher and sender run theirs as written-out SQL (one round trip each, with bound
 * parameters; see src/common/sql.ts); the admin CLI's mailbox commands use the ORM.
 */

// ---------------------------------------------------------------------------------------------
// Mailboxes: the admin CLI's records

/** Whether the workspace has a mailbox (for this address, when given). */
export async function hasMailbox(em: EntityManager, workspaceId: string, address?: string): Promise<boolean> {
  return (await em.count(Mailbox, address === undefined ? { workspace: workspaceId } : { workspace: workspaceId, address })) > 0;
}

/** The mailbox (of any workspace) that already reads this folder of this account, if any. */
export async function mailboxOnFolder(em: EntityManager, imap: { host: string; port: number; user: string; folder: string }): Promise<{ id: string; workspace_id: string } | null> {
  const [row] = await sql<{ id: string; workspace_id: string }>(
    em,
    `select "id", "workspace_id" from "mailboxes" where lower("imap"->>'host') = $1 and ("imap"->>'port')::int = $2 and "imap"->>'user' = $3 and "imap"->>'folder' = $4`,
    [imap.host.toLowerCase(), imap.port, imap.user, imap.folder],
  );
  return row ?? null;
}

export async function saveMailbox(em: EntityManager, fields: RequiredEntityData<Mailbox>): Promise<Mailbox> {
  const mailbox = em.create(Mailbox, fields);
  await em.flush();
  return mailbox;
}

export const mailboxesOf = (em: EntityManager, workspaceId: string): Promise<Mailbox[]> =>
  em.find(Mailbox, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });

export const findMailbox = (em: EntityManager, mailboxId: string): Promise<Mailbox | null> => em.findOne(Mailbox, { id: mailboxId });

export async function deleteMailbox(em: EntityManager, mailboxId: string): Promise<void> {
  await em.nativeDelete(Mailbox, { id: mailboxId });
}

/** How many mails of each outcome every mailbox received. */
export const receiptTally = (em: EntityManager, mailboxIds: string[]) =>
  sql<{ mailbox_id: string; outcome: ReceiptOutcome; n: string }>(
    em,
    'select "mailbox_id", "outcome", count(*) as "n" from "mail_receipts" where "mailbox_id" = any($1) group by 1, 2',
    [mailboxIds],
  );

/** The newest skipped mail of every mailbox. */
export async function lastSkipped(em: EntityManager, mailboxIds: string[]): Promise<Map<string, { at: string; outcome: string; detail: string | null }>> {
  const rows = await sql<{ mailbox_id: string; created_at: Date | string; outcome: string; detail: string | null }>(
    em,
    `select distinct on ("mailbox_id") "mailbox_id", "created_at", "outcome", "detail" from "mail_receipts"
      where "mailbox_id" = any($1) and "outcome" in ('too_large', 'invalid', 'failed') order by "mailbox_id", "created_at" desc`,
    [mailboxIds],
  );
  return new Map(rows.map((r) => [r.mailbox_id, { at: pgTimestamp(r.created_at).toISOString(), outcome: r.outcome, detail: r.detail }]));
}

// ---------------------------------------------------------------------------------------------
// Mailboxes: the worker's cursor and state

/** The mailboxes to read (of these workspaces only, when given), oldest first. */
export async function mailboxIds(em: EntityManager, workspaceIds?: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }>(em, `select "id" from "mailboxes"${workspaceIds ? ' where "workspace_id" = any($1)' : ''} order by "created_at"`, workspaceIds ? [workspaceIds] : []);
  return rows.map((r) => r.id);
}

export type MailboxCursor = { uidValidity: string | null; lastUid: number };

export async function readCursor(em: EntityManager, mailboxId: string): Promise<MailboxCursor | null> {
  const [row] = await sql<{ uid_validity: string | null; last_uid: string }>(em, 'select "uid_validity", "last_uid" from "mailboxes" where "id" = $1', [mailboxId]);
  return row ? { uidValidity: row.uid_validity, lastUid: Number(row.last_uid) } : null;
}

/** The folder was renumbered (a new UIDVALIDITY): it is read afresh from its first mail. */
export async function resetCursor(em: EntityManager, mailboxId: string, uidValidity: string): Promise<void> {
  await sql(em, 'update "mailboxes" set "uid_validity" = $2, "last_uid" = 0 where "id" = $1', [mailboxId, uidValidity]);
}

export type LockedMailbox = { id: string; workspaceId: string; address: string; uidValidity: string | null; lastUid: number; importSince: Date };

/** The mailbox, its row locked until the transaction of `em` ends: one mail is taken in at a time. */
export async function lockMailbox(em: EntityManager, mailboxId: string): Promise<LockedMailbox | null> {
  const [row] = await sql<{ id: string; workspace_id: string; address: string; uid_validity: string | null; last_uid: string | number; import_since: Date | string }>(
    em,
    'select "id", "workspace_id", "address", "uid_validity", "last_uid", "import_since" from "mailboxes" where "id" = $1 for update',
    [mailboxId],
  );
  if (!row) return null;
  return { id: row.id, workspaceId: row.workspace_id, address: row.address, uidValidity: row.uid_validity, lastUid: Number(row.last_uid), importSince: pgTimestamp(row.import_since) };
}

/** Moves the cursor past a mail taken in. */
export async function advanceCursor(em: EntityManager, mailboxId: string, uid: number): Promise<void> {
  await sql(em, 'update "mailboxes" set "last_uid" = $2, "last_fetch_at" = now() where "id" = $1', [mailboxId, uid]);
}

/** A pass over the folder ended well: the mailbox is read, and an earlier error is over (no longer shown). */
export async function markWatching(em: EntityManager, mailboxId: string): Promise<void> {
  await sql(em, `update "mailboxes" set "state" = 'watching', "last_fetch_at" = now(), "last_error" = null, "last_error_at" = null where "id" = $1`, [mailboxId]);
}

/** The mailbox cannot be read now (the watcher retries): the operator sees why. */
export async function markError(em: EntityManager, mailboxId: string, error: string): Promise<void> {
  await sql(em, `update "mailboxes" set "state" = 'error', "last_error" = $2, "last_error_at" = now() where "id" = $1`, [mailboxId, error]);
}

/**
 * The mailbox a ticket's replies go out through: the one its customer's newest mail came in
 * by, else the workspace's first. Null: the workspace has none.
 */
export async function mailboxForTicket(em: EntityManager, workspaceId: string, ticketId: string): Promise<{ id: string; address: string; name: string | null } | null> {
  const [row] = await sql<{ id: string; address: string; name: string | null }>(
    em,
    `select m."id", m."address", m."name" from "mailboxes" m
      where m."workspace_id" = $1
      order by (m."id" = (select mm."mailbox_id" from "mail_messages" mm where mm."ticket_id" = $2 and mm."direction" = 'inbound' and mm."mailbox_id" is not null order by mm."created_at" desc limit 1)) desc nulls last,
               m."created_at", m."id"
      limit 1`,
    [workspaceId, ticketId],
  );
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// Receipts: what became of each mail of a mailbox

export type NewReceipt = {
  mailboxId: string;
  uidValidity: string;
  uid: number;
  rfcMessageId: string | null;
  size: number;
  outcome: ReceiptOutcome;
  ticketId: string | null;
  messageId: string | null;
  detail: string;
};

/** The receipt's id, or null when the mail already has one (another watcher took it in). */
export async function insertReceipt(em: EntityManager, r: NewReceipt): Promise<string | null> {
  const [row] = await sql<{ id: string }>(
    em,
    `insert into "mail_receipts" ("id", "created_at", "mailbox_id", "uid_validity", "uid", "rfc_message_id", "size", "outcome", "ticket_id", "message_id", "detail")
     values (gen_random_uuid(), now(), $1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing returning "id"`,
    [r.mailboxId, r.uidValidity, r.uid, r.rfcMessageId, r.size, r.outcome, r.ticketId, r.messageId, r.detail.slice(0, 2000)],
  );
  return row?.id ?? null;
}

/** Receipts whose ticket or message committed but whose \Seen flag is not set yet (a crash between the two). */
export async function unseenReceipts(em: EntityManager, mailboxId: string, uidValidity: string): Promise<Array<{ id: string; uid: number }>> {
  const rows = await sql<{ id: string; uid: string }>(
    em,
    `select "id", "uid" from "mail_receipts" where "mailbox_id" = $1 and "uid_validity" = $2 and "seen_at" is null and "outcome" in ('ticket', 'reply', 'duplicate') order by "uid" limit 500`,
    [mailboxId, uidValidity],
  );
  return rows.map((r) => ({ id: r.id, uid: Number(r.uid) }));
}

export async function markReceiptsSeen(em: EntityManager, receiptIds: string[]): Promise<void> {
  if (receiptIds.length) await sql(em, 'update "mail_receipts" set "seen_at" = now() where "id" = any($1)', [receiptIds]);
}

// ---------------------------------------------------------------------------------------------
// Mail messages: the Message-ID and thread of every message that came in or went out by mail

/** Until the transaction of `em` ends, no other one takes in a mail with this Message-ID in the workspace. */
export async function lockMessageId(em: EntityManager, workspaceId: string, rfcMessageId: string): Promise<void> {
  await sql(em, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [`deskflow mail ${workspaceId} ${rfcMessageId}`]);
}

export async function mailMessageByMessageId(em: EntityManager, workspaceId: string, rfcMessageId: string): Promise<{ ticketId: string; messageId: string } | null> {
  const [row] = await sql<{ ticket_id: string; message_id: string }>(em, 'select "ticket_id", "message_id" from "mail_messages" where "workspace_id" = $1 and "rfc_message_id" = $2', [
    workspaceId,
    rfcMessageId,
  ]);
  return row ? { ticketId: row.ticket_id, messageId: row.message_id } : null;
}

export async function recordMailMessage(
  em: EntityManager,
  m: { messageId: string; workspaceId: string; ticketId: string; mailboxId: string | null; direction: 'inbound' | 'outbound'; rfcMessageId: string; references: string[] },
): Promise<void> {
  await sql(
    em,
    'insert into "mail_messages" ("message_id", "workspace_id", "ticket_id", "mailbox_id", "direction", "rfc_message_id", "references", "created_at") values ($1, $2, $3, $4, $5, $6, $7, now())',
    [m.messageId, m.workspaceId, m.ticketId, m.mailboxId, m.direction, m.rfcMessageId, m.references],
  );
}

/** The mail an outbound message answers: the customer's newest, else the ticket's newest of any direction. */
export async function replyParent(em: EntityManager, ticketId: string, messageId: string): Promise<{ rfcMessageId: string; references: string[] } | null> {
  const [row] = await sql<{ rfc_message_id: string; references: string[] }>(
    em,
    `select "rfc_message_id", "references" from "mail_messages" where "ticket_id" = $1 and "message_id" <> $2
      order by ("direction" = 'inbound') desc, "created_at" desc limit 1`,
    [ticketId, messageId],
  );
  return row ? { rfcMessageId: row.rfc_message_id, references: row.references } : null;
}

// ---------------------------------------------------------------------------------------------
// Threading: the tickets a mail's keys name (src/mail/thread.ts decides among them)

export type ThreadCandidate = { ticketId: string; customerEmail: string };
type CandidateRow = { ticket_id: string; customer_email: string };
const candidate = (row: CandidateRow): ThreadCandidate => ({ ticketId: row.ticket_id, customerEmail: row.customer_email });

/** The ticket of the first of these Message-IDs (in their order) that the workspace knows. */
export async function ticketByMessageIds(em: EntityManager, workspaceId: string, messageIds: string[]): Promise<ThreadCandidate | null> {
  const rows = await sql<CandidateRow & { rfc_message_id: string }>(
    em,
    `select mm."rfc_message_id", t."id" as "ticket_id", t."customer_email" from "mail_messages" mm join "tickets" t on t."id" = mm."ticket_id"
      where mm."workspace_id" = $1 and mm."rfc_message_id" = any($2)`,
    [workspaceId, messageIds],
  );
  const first = messageIds.map((id) => rows.find((r) => r.rfc_message_id === id)).find(Boolean);
  return first ? candidate(first) : null;
}

export async function ticketById(em: EntityManager, workspaceId: string, ticketId: string): Promise<ThreadCandidate | null> {
  const [row] = await sql<CandidateRow>(em, 'select "id" as "ticket_id", "customer_email" from "tickets" where "id" = $1 and "workspace_id" = $2', [ticketId, workspaceId]);
  return row ? candidate(row) : null;
}

/** The ticket whose id lies between the bounds, when exactly one does (a subject's short reference). */
export async function onlyTicketBetween(em: EntityManager, workspaceId: string, low: string, high: string): Promise<ThreadCandidate | null> {
  const rows = await sql<CandidateRow>(em, 'select "id" as "ticket_id", "customer_email" from "tickets" where "workspace_id" = $1 and "id" between $2 and $3 limit 2', [
    workspaceId,
    low,
    high,
  ]);
  return rows.length === 1 ? candidate(rows[0]) : null;
}

// ---------------------------------------------------------------------------------------------
// Deliveries: the SMTP delivery of every outbound message

export type NewDelivery = {
  messageId: string;
  workspaceId: string;
  mailboxId: string;
  ticketId: string;
  kind: 'automation' | 'agent';
  via: 'run' | 'workflow';
  toAddress: string;
  toName: string | null;
  subject: string;
  inReplyTo: string | null;
  references: string[];
};

export async function deliveryStatus(em: EntityManager, messageId: string): Promise<DeliveryStatus | null> {
  const [row] = await sql<{ status: DeliveryStatus }>(em, 'select "status" from "mail_deliveries" where "message_id" = $1', [messageId]);
  return row?.status ?? null;
}

export async function insertDelivery(em: EntityManager, d: NewDelivery): Promise<void> {
  await sql(
    em,
    `insert into "mail_deliveries" ("message_id", "workspace_id", "mailbox_id", "ticket_id", "kind", "via", "to_address", "to_name", "subject", "in_reply_to", "references", "status", "attempts", "created_at")
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', 0, now())`,
    [d.messageId, d.workspaceId, d.mailboxId, d.ticketId, d.kind, d.via, d.toAddress, d.toName, d.subject, d.inReplyTo, d.references],
  );
}

/** A delivery with everything its mail is made of: the message, its Message-ID and the mailbox it goes out through (null fields: removed). */
export type DeliveryToSend = {
  message_id: string;
  ticket_id: string;
  kind: 'automation' | 'agent';
  status: DeliveryStatus;
  to_address: string;
  to_name: string | null;
  subject: string;
  in_reply_to: string | null;
  references: string[];
  last_error: string | null;
  smtp_response: string | null;
  body: string;
  body_html: string | null;
  rfc_message_id: string;
  mailbox_id: string | null;
  address: string | null;
  name: string | null;
  smtp: SmtpEndpoint | null;
  smtp_secret: string | null;
  plus_addressing: boolean | null;
};

export async function deliveryToSend(em: EntityManager, messageId: string): Promise<DeliveryToSend | null> {
  const [row] = await sql<DeliveryToSend>(
    em,
    `select d."message_id", d."ticket_id", d."kind", d."status", d."to_address", d."to_name", d."subject", d."in_reply_to", d."references", d."last_error", d."smtp_response",
            msg."body", msg."body_html", mm."rfc_message_id", d."mailbox_id", mb."address", mb."name", mb."smtp", mb."smtp_secret", mb."plus_addressing"
       from "mail_deliveries" d
       join "messages" msg on msg."id" = d."message_id"
       join "mail_messages" mm on mm."message_id" = d."message_id"
       left join "mailboxes" mb on mb."id" = d."mailbox_id"
      where d."message_id" = $1`,
    [messageId],
  );
  return row ?? null;
}

/** Who and what a delivery is about (named in Temporal), and the last error it met. */
export async function deliveryAbout(em: EntityManager, messageId: string): Promise<{ to: string; subject: string; lastError: string | null } | null> {
  const [row] = await sql<{ to_address: string; subject: string; last_error: string | null }>(
    em,
    'select "to_address", "subject", "last_error" from "mail_deliveries" where "message_id" = $1',
    [messageId],
  );
  return row ? { to: row.to_address, subject: row.subject, lastError: row.last_error } : null;
}

export async function countAttempt(em: EntityManager, messageId: string): Promise<void> {
  await sql(em, 'update "mail_deliveries" set "attempts" = "attempts" + 1 where "message_id" = $1', [messageId]);
}

/** An attempt failed in a way a retry may fix: the error is shown meanwhile. */
export async function noteDeliveryError(em: EntityManager, messageId: string, problem: string): Promise<void> {
  await sql(em, 'update "mail_deliveries" set "last_error" = $2 where "message_id" = $1', [messageId, problem]);
}

export async function markDeliverySent(em: EntityManager, messageId: string, response: string): Promise<void> {
  await sql(em, `update "mail_deliveries" set "status" = 'sent', "sent_at" = now(), "smtp_response" = $2, "last_error" = null where "message_id" = $1 and "status" = 'pending'`, [
    messageId,
    response,
  ]);
}

export async function markDeliveryFailed(em: EntityManager, messageId: string, reason: string, response: string | null): Promise<void> {
  await sql(
    em,
    `update "mail_deliveries" set "status" = 'failed', "failed_at" = now(), "last_error" = $2, "smtp_response" = coalesce($3, "smtp_response") where "message_id" = $1 and "status" = 'pending'`,
    [messageId, reason, response],
  );
}

/** A bounce returned these Message-IDs: the deliveries of the workspace's outbound mail among them failed. Returns their message ids. */
export async function failBouncedDeliveries(em: EntityManager, workspaceId: string, rfcMessageIds: string[], error: string): Promise<string[]> {
  const rows = await sql<{ message_id: string }>(
    em,
    `update "mail_deliveries" set "status" = 'failed', "failed_at" = now(), "last_error" = $3
      where "message_id" in (select "message_id" from "mail_messages" where "workspace_id" = $1 and "direction" = 'outbound' and "rfc_message_id" = any($2))
      returning "message_id"`,
    [workspaceId, rfcMessageIds, error],
  );
  return rows.map((r) => r.message_id);
}

/** Deliveries whose workflow is still to start, oldest first, locked (skipping those another worker holds). */
export async function deliveriesToStart(
  em: EntityManager,
  limit: number,
  workspaceIds?: string[],
): Promise<Array<{ messageId: string; to: string; subject: string; createdAt: Date }>> {
  const rows = await sql<{ message_id: string; to_address: string; subject: string; created_at: string | Date }>(
    em,
    `select "message_id", "to_address", "subject", "created_at" from "mail_deliveries"
      where "via" = 'workflow' and "started_at" is null${workspaceIds ? ' and "workspace_id" = any($2)' : ''}
      order by "created_at" limit $1 for update skip locked`,
    workspaceIds ? [limit, workspaceIds] : [limit],
  );
  return rows.map((r) => ({ messageId: r.message_id, to: r.to_address, subject: r.subject, createdAt: pgTimestamp(r.created_at) }));
}

/** Marks these deliveries' workflows started (those not marked yet). */
export async function markDeliveriesStarted(em: EntityManager, messageIds: string[]): Promise<void> {
  await sql(em, 'update "mail_deliveries" set "started_at" = now() where "message_id" = any($1) and "started_at" is null', [messageIds]);
}
