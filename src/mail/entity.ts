import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, createdAt } from '../common/base-entity.ts';
import { Message } from '../messages/entity.ts';
import { Workspace } from '../workspaces/entity.ts';
import type { ImapEndpoint, SmtpEndpoint } from './urls.ts';

export const MAILBOX_STATES = ['new', 'watching', 'error'] as const;
export type MailboxState = (typeof MAILBOX_STATES)[number];

/**
 * A support mailbox of a workspace: where its mail is read (IMAP) and its replies sent (SMTP).
 * Credentials are sealed (src/mail/secrets.ts) and never leave the worker and the admin CLI.
 * The cursor (uidValidity, lastUid) says which mail has been taken in: every mail above it on
 * the server is new, whatever its flags.
 */
const MailboxSchema = defineEntity({
  name: 'Mailbox',
  tableName: 'mailboxes',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    address: p.string().length(320),
    name: p.string().length(200).nullable(),
    imap: p.json<ImapEndpoint>(),
    smtp: p.json<SmtpEndpoint>(),
    imapSecret: p.text(),
    smtpSecret: p.text(),
    /** Replies ask to be answered at `address+<ticket id>@…` (the server must deliver sub-addresses). */
    plusAddressing: p.boolean().default(false),
    state: p.enum(MAILBOX_STATES).default('new'),
    lastError: p.text().nullable(),
    lastErrorAt: p.datetime(3).nullable(),
    lastFetchAt: p.datetime(3).nullable(),
    uidValidity: p.bigint('string').nullable(),
    lastUid: p.bigint('number').default(0),
    /** Mail the server received before this instant is not taken in when the mailbox is read afresh (a new UIDVALIDITY). */
    importSince: p.datetime(3),
  },
  uniques: [{ name: 'mailboxes_workspace_address_unique', properties: ['workspace', 'address'] }],
});
export class Mailbox extends MailboxSchema.class {}
MailboxSchema.setClass(Mailbox);

export const RECEIPT_OUTCOMES = ['ticket', 'reply', 'duplicate', 'own', 'bounce', 'automatic', 'too_large', 'invalid', 'failed'] as const;
export type ReceiptOutcome = (typeof RECEIPT_OUTCOMES)[number];

/**
 * One mail of a mailbox (UIDVALIDITY, UID) and what became of it: written in the transaction
 * that makes its ticket or message, so a mail is taken in once whatever restarts; `seenAt` once
 * it is flagged \Seen on the server, which happens only after that commit.
 */
const MailReceiptSchema = defineEntity({
  name: 'MailReceipt',
  tableName: 'mail_receipts',
  extends: BaseEntity,
  properties: {
    mailbox: () => p.manyToOne(Mailbox).mapToPk().deleteRule('cascade'),
    uidValidity: p.bigint('string'),
    uid: p.bigint('number'),
    rfcMessageId: p.string().length(998).nullable(),
    size: p.integer(),
    outcome: p.enum(RECEIPT_OUTCOMES),
    ticketId: p.uuid().nullable(),
    messageId: p.uuid().nullable(),
    /** Why it was skipped or ignored, or who wrote it: what an operator needs to find it. */
    detail: p.text().nullable(),
    seenAt: p.datetime(3).nullable(),
  },
  uniques: [{ name: 'mail_receipts_mailbox_uid_unique', properties: ['mailbox', 'uidValidity', 'uid'] }],
  indexes: [
    {
      name: 'mail_receipts_unseen_idx',
      expression: 'create index "mail_receipts_unseen_idx" on "mail_receipts" ("mailbox_id") where "seen_at" is null and "outcome" in (\'ticket\', \'reply\', \'duplicate\')',
    },
    { name: 'mail_receipts_mailbox_outcome_idx', properties: ['mailbox', 'outcome', 'createdAt'] },
  ],
});
export class MailReceipt extends MailReceiptSchema.class {}
MailReceiptSchema.setClass(MailReceipt);

/**
 * The mail identity of a message that came in or went out by mail: its Message-ID (unique in
 * the workspace: the same mail twice is one message) and the thread it continues. Threading
 * looks replies up here; message responses never show it.
 */
const MailMessageSchema = defineEntity({
  name: 'MailMessage',
  tableName: 'mail_messages',
  properties: {
    message: () => p.oneToOne(Message).mapToPk().primary().deleteRule('cascade'),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    ticketId: p.uuid(),
    mailbox: () => p.manyToOne(Mailbox).mapToPk().nullable().deleteRule('set null'),
    direction: p.enum(['inbound', 'outbound'] as const),
    rfcMessageId: p.string().length(998),
    /** In-Reply-To and References of the mail, oldest first. */
    references: p.array<string>().default([]),
    createdAt: createdAt(),
  },
  uniques: [{ name: 'mail_messages_workspace_rfc_unique', properties: ['workspace', 'rfcMessageId'] }],
  indexes: [{ name: 'mail_messages_ticket_idx', properties: ['ticketId', 'createdAt'] }],
});
export class MailMessage extends MailMessageSchema.class {}
MailMessageSchema.setClass(MailMessage);

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The delivery of an outbound message by SMTP, fixed when the message is written: recipient,
 * subject and thread (its Message-ID is in mail_messages). `via`: `run` when the automation's
 * run delivers it as its own step, `workflow` when a delivery workflow of its own does (agent
 * replies), started from this row.
 */
const MailDeliverySchema = defineEntity({
  name: 'MailDelivery',
  tableName: 'mail_deliveries',
  properties: {
    message: () => p.oneToOne(Message).mapToPk().primary().deleteRule('cascade'),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    mailbox: () => p.manyToOne(Mailbox).mapToPk().nullable().deleteRule('set null'),
    ticketId: p.uuid(),
    kind: p.enum(['automation', 'agent'] as const),
    via: p.enum(['run', 'workflow'] as const),
    toAddress: p.string().length(320),
    toName: p.string().length(200).nullable(),
    subject: p.text(),
    inReplyTo: p.string().length(998).nullable(),
    references: p.array<string>().default([]),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
    /** The server's answer to the final attempt (250 … queued as …, or the refusal). */
    smtpResponse: p.text().nullable(),
    sentAt: p.datetime(3).nullable(),
    failedAt: p.datetime(3).nullable(),
    /** When its delivery workflow was started (via `workflow`); null: still to start. */
    startedAt: p.datetime(3).nullable(),
    createdAt: createdAt(),
  },
  indexes: [
    {
      name: 'mail_deliveries_unstarted_idx',
      expression: 'create index "mail_deliveries_unstarted_idx" on "mail_deliveries" ("created_at") where "via" = \'workflow\' and "started_at" is null',
    },
  ],
});
export class MailDelivery extends MailDeliverySchema.class {}
MailDeliverySchema.setClass(MailDelivery);
