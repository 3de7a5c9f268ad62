import sanitizeHtml from 'sanitize-html';
import { codePointLength } from '../graph/index.ts';
import type { MailAddress, MailFacts } from './parse.ts';
import { stripSubjectTokens } from './thread.ts';

/**
 * What of a mail goes into a ticket (pure): subject, customer, body and HTML body within the
 * interface's limits. Nothing is refused for being long: a text over its limit is cut to it,
 * with a note saying so.
 */
export const LIMITS = { subject: 500, body: 100_000, bodyHtml: 200_000, name: 200, email: 320 } as const;

/** The first `max` code points of `s` (never half a surrogate pair). */
export function cutToCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  let n = 0;
  let end = 0;
  for (const ch of s) {
    if (n === max) break;
    n += 1;
    end += ch.length;
  }
  return s.slice(0, end);
}

/** A new ticket's subject: without Deskflow's references, `(no subject)` when empty, at most 500 characters. */
export function ticketSubject(subject: string): string {
  const s = stripSubjectTokens(subject.replace(/[\r\n\t]+/g, ' ')).trim();
  return s === '' ? '(no subject)' : cutToCodePoints(s, LIMITS.subject);
}

/** `local@domain` as the API takes it (one `@`, no whitespace, at most 320 characters), else null. */
export function usableAddress(a: MailAddress | null): MailAddress | null {
  if (!a) return null;
  const address = a.address.trim();
  if (codePointLength(address, LIMITS.email) > LIMITS.email || !/^[^@\s]+@[^@\s]+$/u.test(address)) return null;
  const name = a.name ? cutToCodePoints(a.name.replace(/\s+/g, ' ').trim(), LIMITS.name) : null;
  return { address, name: name || null };
}

/** Who a new ticket is for: Reply-To when the mail names one (contact forms send From themselves), else From. */
export function customerOf(mail: Pick<MailFacts, 'from' | 'replyTo'>): MailAddress | null {
  return usableAddress(mail.replyTo) ?? usableAddress(mail.from);
}

/**
 * HTML that is safe to show: formatting, tables, links and inline images only. No scripts,
 * styles, frames, forms, objects or event handlers; links only to http(s) and mailto; images
 * only as data: URLs, so that a remote image (a tracking pixel) is never loaded by opening a ticket.
 */
export function sanitizeMailHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [
      'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'code', 'col', 'colgroup', 'dd', 'del', 'div', 'dl', 'dt', 'em', 'h1', 'h2', 'h3',
      'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'ol', 'p', 'pre', 'q', 's', 'small', 'span', 'strike', 'strong', 'sub', 'sup',
      'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul',
    ],
    allowedAttributes: {
      a: ['href', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      td: ['colspan', 'rowspan', 'align'],
      th: ['colspan', 'rowspan', 'align'],
      '*': ['dir', 'lang'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['data'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    // An image whose source was dropped (a remote one) is dropped whole.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
    transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }) },
  }).trim();
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export type MailBody = { body: string; bodyHtml: string | null; notes: string[] };

/**
 * The message of a mail: its text part (an HTML-only mail: the text of its HTML) as `body`, its
 * HTML sanitised as `bodyHtml`, each cut to its limit with a note; attachments are named in
 * the body (Deskflow keeps no files: they stay in the mailbox).
 */
export function mailBody(mail: Pick<MailFacts, 'text' | 'html' | 'attachments' | 'messageId'>): MailBody {
  const notes: string[] = [];
  let text = mail.text.replace(/\r\n/g, '\n').replace(/\s+$/, '');
  if (text.trim() === '') text = '(no text)';
  if (mail.attachments.length > 0) {
    const listed = mail.attachments.slice(0, 20).map((a) => `${a.filename ?? 'unnamed'} (${sizeText(a.size)})`);
    const more = mail.attachments.length > 20 ? ` and ${mail.attachments.length - 20} more` : '';
    text += `\n\n[Attachments, kept in the mailbox only: ${listed.join(', ')}${more}]`;
  }
  const where = mail.messageId ? ` The whole mail stays in the mailbox (Message-ID ${mail.messageId}).` : ' The whole mail stays in the mailbox.';
  const length = codePointLength(text);
  if (length > LIMITS.body) {
    const note = `\n\n[Cut by Deskflow: this text has ${length} characters; only the first part is kept here.${where}]`;
    text = cutToCodePoints(text, LIMITS.body - codePointLength(note)) + note;
    notes.push(`text cut from ${length} to ${LIMITS.body} characters`);
  }

  let bodyHtml: string | null = mail.html ? sanitizeMailHtml(mail.html) : null;
  if (bodyHtml !== null && bodyHtml.trim() === '') bodyHtml = null;
  if (bodyHtml !== null) {
    const htmlLength = codePointLength(bodyHtml);
    if (htmlLength > LIMITS.bodyHtml) {
      const note = `<p>[Cut by Deskflow: this HTML has ${htmlLength} characters; only the first part is kept here.${where.replace(/</g, '&lt;').replace(/>/g, '&gt;')}]</p>`;
      let budget = LIMITS.bodyHtml - codePointLength(note);
      let cut = '';
      // Cutting may split a tag; sanitising again closes what was left open, which adds a little.
      for (;;) {
        cut = sanitizeMailHtml(cutToCodePoints(bodyHtml, budget));
        if (codePointLength(cut) + codePointLength(note) <= LIMITS.bodyHtml) break;
        budget -= 1000;
      }
      bodyHtml = cut + note;
      notes.push(`HTML cut from ${htmlLength} to ${LIMITS.bodyHtml} characters`);
    }
  }
  return { body: text, bodyHtml, notes };
}
