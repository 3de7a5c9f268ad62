import type { MailFacts } from './parse.ts';

/**
 * Which ticket a mail belongs to (pure; the importer looks the keys up). Strongest first, as
 * Zammad's follow_up_check orders it:
 *   1. its In-Reply-To / References name the Message-ID of a message of the workspace (every
 *      message that came in or went out by mail has one);
 *   2. it was sent to the ticket's reply address (`support+<ticket id>@…`, which only mail
 *      Deskflow sent carries: 128 random bits cannot be guessed);
 *   3. its subject carries the ticket's reference (`[Ticket#1a2b3c4d5e]`). Short and visible,
 *      so a weak match: it counts only when the sender is the ticket's customer; anyone else
 *      using it starts a new ticket.
 * Nothing matched: the mail starts a new ticket.
 */

const REF_LENGTH = 10;
const SUBJECT_TOKEN = /\[Ticket#([0-9a-f]{10})\]/gi;

/** The ticket's reference in subjects: the first 10 hex digits of its id. */
export function ticketRef(ticketId: string): string {
  return ticketId.replace(/-/g, '').slice(0, REF_LENGTH).toLowerCase();
}

export function subjectToken(ticketId: string): string {
  return `[Ticket#${ticketRef(ticketId)}]`;
}

/** The subject without Deskflow's references (a new ticket's subject, a reply's subject to build on). */
export function stripSubjectTokens(subject: string): string {
  return subject.replace(SUBJECT_TOKEN, '').replace(/\s{2,}/g, ' ').trim();
}

/** `support+<32 hex digits of the ticket id>@acme.example`. */
export function replyAddress(mailboxAddress: string, ticketId: string): string {
  const at = mailboxAddress.lastIndexOf('@');
  return `${mailboxAddress.slice(0, at)}+${ticketId.replace(/-/g, '').toLowerCase()}${mailboxAddress.slice(at)}`;
}

const uuidFromHex = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export type ThreadKeys = {
  /** In-Reply-To, then References from the newest back: the order in which they count. */
  messageIds: string[];
  /** The ticket id of a reply address the mail was sent to. */
  replyAddressTicketId: string | null;
  /** The reference in the subject (10 hex digits). */
  subjectRef: string | null;
};

export function threadKeys(mail: Pick<MailFacts, 'inReplyTo' | 'references' | 'subject' | 'recipients'>, mailboxAddress: string): ThreadKeys {
  const messageIds: string[] = [];
  for (const id of [...mail.inReplyTo, ...[...mail.references].reverse()]) if (!messageIds.includes(id)) messageIds.push(id);
  const at = mailboxAddress.lastIndexOf('@');
  const local = mailboxAddress.slice(0, at).toLowerCase();
  const domain = mailboxAddress.slice(at + 1).toLowerCase();
  let replyAddressTicketId: string | null = null;
  for (const recipient of mail.recipients) {
    const m = /^(.+)\+([0-9a-f]{32})@(.+)$/.exec(recipient.toLowerCase());
    if (m && m[1] === local && m[3] === domain) {
      replyAddressTicketId = uuidFromHex(m[2]);
      break;
    }
  }
  const subjectRef = [...mail.subject.matchAll(SUBJECT_TOKEN)][0]?.[1]?.toLowerCase() ?? null;
  return { messageIds, replyAddressTicketId, subjectRef };
}

export type ThreadMatch = { ticketId: string; customerEmail: string };
export type ThreadDecision =
  | { ticketId: string; by: 'header' | 'reply_address' | 'subject' }
  | { ticketId: null; reason: string };

const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The decision, given what each key found (null: nothing) and who sent the mail. */
export function chooseThread(found: { byHeader: ThreadMatch | null; byReplyAddress: ThreadMatch | null; bySubject: ThreadMatch | null }, sender: string): ThreadDecision {
  if (found.byHeader) return { ticketId: found.byHeader.ticketId, by: 'header' };
  if (found.byReplyAddress) return { ticketId: found.byReplyAddress.ticketId, by: 'reply_address' };
  if (found.bySubject) {
    if (sameAddress(found.bySubject.customerEmail, sender)) return { ticketId: found.bySubject.ticketId, by: 'subject' };
    return { ticketId: null, reason: `the subject names ticket ${found.bySubject.ticketId}, but ${sender} is not its customer` };
  }
  return { ticketId: null, reason: 'no reference to a ticket' };
}
