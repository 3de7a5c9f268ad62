import type { MailFacts } from './parse.ts';

/**
 * What kind of mail arrived, before anything is made of it (pure). Only `human` mail may
 * become a ticket or a message: mail from the mailbox itself, bounces and automatic mail
 * (auto-replies, out-of-office notes, lists, newsletters that say so) never create a ticket
 * and never emit an event, so that two automatic responders cannot write to each other forever.
 * The rules follow RFC 3834 (Auto-Submitted), RFC 3464 (delivery status notifications) and
 * what Zammad's auto_response_check and Chatwoot's mailboxes look at.
 */
export type MailKind = 'own' | 'bounce' | 'automatic' | 'human';
export type Classification = { kind: MailKind; reason: string };

const first = (mail: Pick<MailFacts, 'headers'>, name: string) => mail.headers.get(name)?.[0]?.trim();

/** The address and its sub-addresses (support+anything@) of a mailbox, compared case-insensitively. */
export function isOwnAddress(address: string, mailboxAddress: string): boolean {
  const [local, domain] = splitAddress(address.toLowerCase());
  const [ownLocal, ownDomain] = splitAddress(mailboxAddress.toLowerCase());
  if (domain !== ownDomain) return false;
  return local === ownLocal || local.startsWith(`${ownLocal}+`);
}

function splitAddress(address: string): [string, string] {
  const at = address.lastIndexOf('@');
  return at < 0 ? [address, ''] : [address.slice(0, at), address.slice(at + 1)];
}

const BOUNCE_SENDERS = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)$/i;
const AUTOMATIC_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);

export function classifyMail(mail: Pick<MailFacts, 'from' | 'headers' | 'contentType'>, mailboxAddress: string): Classification {
  const from = mail.from?.address ?? '';
  if (from && isOwnAddress(from, mailboxAddress)) return { kind: 'own', reason: `sent from the mailbox's own address (${from})` };

  const contentType = mail.contentType.replace(/\s+/g, '');
  if (contentType.startsWith('multipart/report') && /report-type="?delivery-status"?/.test(contentType)) {
    return { kind: 'bounce', reason: 'a delivery status notification (multipart/report; report-type=delivery-status)' };
  }
  if (from && BOUNCE_SENDERS.test(splitAddress(from)[0])) return { kind: 'bounce', reason: `sent by ${from}` };
  if (first(mail, 'x-failed-recipients')) return { kind: 'bounce', reason: 'names failed recipients (X-Failed-Recipients)' };

  const autoSubmitted = first(mail, 'auto-submitted');
  if (autoSubmitted !== undefined && autoSubmitted.split(';')[0].trim().toLowerCase() !== 'no') {
    return { kind: 'automatic', reason: `Auto-Submitted: ${autoSubmitted}` };
  }
  for (const header of ['x-autoreply', 'x-autorespond', 'x-auto-reply']) {
    const value = first(mail, header);
    if (value !== undefined && value.toLowerCase() !== 'no') return { kind: 'automatic', reason: `${header}: ${value}` };
  }
  const precedence = first(mail, 'precedence')?.toLowerCase();
  if (precedence && AUTOMATIC_PRECEDENCE.has(precedence)) return { kind: 'automatic', reason: `Precedence: ${precedence}` };
  if (first(mail, 'list-id') !== undefined) return { kind: 'automatic', reason: 'sent through a mailing list (List-Id)' };
  // RFC 5321: a null reverse-path is for notifications that must never be answered.
  if (first(mail, 'return-path') === '<>') return { kind: 'automatic', reason: 'sent with an empty return path (Return-Path: <>)' };
  return { kind: 'human', reason: 'a person wrote it' };
}

/**
 * What a bounce reports about: the Message-IDs it quotes (the returned message's headers,
 * In-Reply-To, References), and the reason the server gave (Diagnostic-Code, else Status).
 */
export function bounceReport(mail: Pick<MailFacts, 'sourceHead' | 'inReplyTo' | 'references' | 'subject'>): { messageIds: string[]; diagnostic: string } {
  const ids = new Set<string>([...mail.inReplyTo, ...mail.references]);
  for (const match of mail.sourceHead.matchAll(/^(?:message-id|in-reply-to|references)[ \t]*:[ \t]*((?:.*)(?:\r?\n[ \t].*)*)/gim)) {
    for (const id of match[1].match(/<[^<>\s]+>/g) ?? []) ids.add(id);
  }
  const diagnostic =
    /^diagnostic-code[ \t]*:[ \t]*((?:.*)(?:\r?\n[ \t].*)*)/im.exec(mail.sourceHead)?.[1] ??
    /^status[ \t]*:[ \t]*([245]\.\d{1,3}\.\d{1,3}.*)$/im.exec(mail.sourceHead)?.[1] ??
    mail.subject;
  return { messageIds: [...ids], diagnostic: diagnostic.replace(/\s+/g, ' ').trim().slice(0, 1000) || 'returned as undeliverable' };
}
