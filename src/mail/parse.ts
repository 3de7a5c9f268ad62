import { simpleParser, type AddressObject } from 'mailparser';

/**
 * A received mail as the rest of src/mail/ sees it: plain data parsed by mailparser, so that
 * classifying, threading and turning a mail into a ticket are pure functions of it.
 */
export type MailAddress = { address: string; name: string | null };

export type MailFacts = {
  /** The Message-ID with its angle brackets, or null when the mail has none. */
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  subject: string;
  from: MailAddress | null;
  replyTo: MailAddress | null;
  /** To, Cc, Delivered-To and X-Original-To addresses, lowercased. */
  recipients: string[];
  /** Raw header values by lowercased name, unfolded, in order. */
  headers: Map<string, string[]>;
  /** The Content-Type of the whole mail, lowercased (e.g. `multipart/report; report-type=delivery-status`). */
  contentType: string;
  /** The text part; for an HTML-only mail, text made from its HTML. */
  text: string;
  html: string | null;
  attachments: Array<{ filename: string | null; size: number }>;
  /** The source as text, for finding what a bounce reports about (at most its first MiB). */
  sourceHead: string;
};

const MESSAGE_ID = /<[^<>\s]+>/g;

/** Every `<id>` in a header value (In-Reply-To, References), in order, without repeats. */
export function messageIdsIn(value: string | string[] | undefined | null): string[] {
  const values = Array.isArray(value) ? value : value ? [value] : [];
  const ids: string[] = [];
  for (const v of values) for (const id of v.match(MESSAGE_ID) ?? []) if (!ids.includes(id)) ids.push(id);
  return ids;
}

/** One Message-ID as stored: `<local@domain>`, at most 998 characters (a header line's limit). */
export function normalizeMessageId(value: string | undefined | null): string | null {
  const [id] = messageIdsIn(value);
  return id && id.length <= 998 ? id : null;
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): MailAddress | null {
  const objects = Array.isArray(field) ? field : field ? [field] : [];
  for (const object of objects) {
    for (const entry of object.value) {
      if (entry.address) return { address: entry.address.trim(), name: entry.name?.trim() ? entry.name.trim() : null };
      for (const member of entry.group ?? []) if (member.address) return { address: member.address.trim(), name: member.name?.trim() ? member.name.trim() : null };
    }
  }
  return null;
}

function allAddresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = Array.isArray(field) ? field : field ? [field] : [];
  return objects.flatMap((o) => o.value.flatMap((e) => [e.address, ...(e.group ?? []).map((g) => g.address)])).filter((a): a is string => !!a).map((a) => a.trim().toLowerCase());
}

function headerMap(lines: ReadonlyArray<{ key: string; line: string }>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { key, line } of lines) {
    const colon = line.indexOf(':');
    const value = (colon < 0 ? '' : line.slice(colon + 1)).replace(/\r?\n[ \t]+/g, ' ').trim();
    map.set(key.toLowerCase(), [...(map.get(key.toLowerCase()) ?? []), value]);
  }
  return map;
}

export async function parseMail(source: Buffer): Promise<MailFacts> {
  const mail = await simpleParser(source, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const headers = headerMap(mail.headerLines);
  const deliveredTo = [...(headers.get('delivered-to') ?? []), ...(headers.get('x-original-to') ?? [])].map((a) => a.replace(/[<>]/g, '').trim().toLowerCase());
  return {
    messageId: normalizeMessageId(mail.messageId),
    inReplyTo: messageIdsIn(mail.inReplyTo),
    references: messageIdsIn(mail.references),
    subject: mail.subject ?? '',
    from: firstAddress(mail.from),
    replyTo: firstAddress(mail.replyTo),
    recipients: [...new Set([...allAddresses(mail.to), ...allAddresses(mail.cc), ...deliveredTo])],
    headers,
    contentType: (headers.get('content-type')?.[0] ?? 'text/plain').toLowerCase(),
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : null,
    attachments: mail.attachments.filter((a) => a.contentDisposition !== 'inline' || !a.contentId).map((a) => ({ filename: a.filename ?? null, size: a.size })),
    sourceHead: source.subarray(0, 1024 * 1024).toString('latin1'),
  };
}
