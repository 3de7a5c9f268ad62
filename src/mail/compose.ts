import type { MailAddress } from './parse.ts';
import { replyAddress, stripSubjectTokens, subjectToken } from './thread.ts';

/**
 * The mail Deskflow sends for an outbound message (pure). Everything that identifies it (its
 * Message-ID, subject and thread headers) is fixed when the message is written, before the
 * first attempt, so that every attempt sends the same mail.
 */

/** `<deskflow.<message id>@<the mailbox's domain>>`: unique, and recognisable in a bounce. */
export function outboundMessageId(messageId: string, mailboxAddress: string): string {
  const domain = mailboxAddress.slice(mailboxAddress.lastIndexOf('@') + 1).toLowerCase();
  return `<deskflow.${messageId}@${domain}>`;
}

/** `Re: <ticket subject> [Ticket#ref]`, without a second `Re:` or a second reference. */
export function replySubject(ticketSubject: string, ticketId: string): string {
  const subject = stripSubjectTokens(ticketSubject).replace(/[\r\n]+/g, ' ');
  const re = /^(re|aw|sv|antw)\s*:/i.test(subject) ? subject : `Re: ${subject}`;
  return `${re} ${subjectToken(ticketId)}`;
}

/** How many Message-IDs a References header keeps: the first (the thread's root) and the newest. */
const MAX_REFERENCES = 20;

/**
 * In-Reply-To and References of a reply: it answers the newest mail of the ticket (the
 * customer's, or else Deskflow's own last one), and References carries that mail's thread
 * with it (RFC 5322 §3.6.4), so the customer's mail program files it under the original mail.
 */
export function continueThread(parent: { rfcMessageId: string; references: string[] } | null): { inReplyTo: string | null; references: string[] } {
  if (!parent) return { inReplyTo: null, references: [] };
  const chain = [...parent.references.filter((id) => id !== parent.rfcMessageId), parent.rfcMessageId];
  const references = chain.length > MAX_REFERENCES ? [chain[0], ...chain.slice(chain.length - (MAX_REFERENCES - 1))] : chain;
  return { inReplyTo: parent.rfcMessageId, references };
}

export type OutboundMail = {
  from: MailAddress;
  to: MailAddress;
  subject: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  text: string;
  html: string | null;
  /** A reply written by an automation (RFC 3834: `Auto-Submitted: auto-replied`). */
  automatic: boolean;
  /** Set when replies should come back to the ticket's own address (`support+<ticket>@`). */
  replyToTicket: { ticketId: string } | null;
};

/** The options nodemailer's sendMail takes for it: exactly these headers, no others of Deskflow's. */
export function toSendOptions(mail: OutboundMail) {
  return {
    from: { name: mail.from.name ?? '', address: mail.from.address },
    to: [{ name: mail.to.name ?? '', address: mail.to.address }],
    ...(mail.replyToTicket ? { replyTo: { name: mail.from.name ?? '', address: replyAddress(mail.from.address, mail.replyToTicket.ticketId) } } : {}),
    subject: mail.subject,
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references.length ? { references: mail.references } : {}),
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    headers: mail.automatic ? { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' } : {},
    // The envelope sender is the mailbox: bounces come back to it, and the watcher reads them.
    envelope: { from: mail.from.address, to: [mail.to.address] },
  };
}
