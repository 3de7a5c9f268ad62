/**
 * The IMAP and SMTP addresses of a mailbox as an operator writes them
 * (`imaps://user:password@imap.example:993/INBOX`, `smtp://user:password@smtp.example:587`), and
 * the TLS rule: a connection without TLS is refused unless the host is loopback or the operator
 * allowed it (`--allow-insecure`). Pure: no I/O.
 */

/** `tls`: TLS from the first byte (imaps, smtps). `starttls`: upgraded with STARTTLS (imap, smtp). */
export type Security = 'tls' | 'starttls';

export type ServerEndpoint = {
  host: string;
  port: number;
  security: Security;
  /**
   * Only for `starttls`: true when the server may be used without TLS (it offers no STARTTLS),
   * which is allowed on a loopback host or with --allow-insecure. Otherwise STARTTLS is required.
   */
  plaintextAllowed: boolean;
  user: string;
};

export type ImapEndpoint = ServerEndpoint & { folder: string };
export type SmtpEndpoint = ServerEndpoint;

export class MailUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailUrlError';
  }
}

const SCHEMES = {
  imap: { 'imaps:': { port: 993, security: 'tls' }, 'imap:': { port: 143, security: 'starttls' } },
  smtp: { 'smtps:': { port: 465, security: 'tls' }, 'smtp:': { port: 587, security: 'starttls' } },
} as const;

/** localhost, 127.0.0.0/8 and ::1: traffic that never leaves the machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function parseServerUrl(kind: 'imap' | 'smtp', value: string, opts: { allowInsecure: boolean }): { endpoint: ServerEndpoint; password: string; path: string } {
  const label = kind === 'imap' ? '--imap' : '--smtp';
  const schemes = SCHEMES[kind];
  const example = kind === 'imap' ? 'imaps://user:password@imap.example.com:993/INBOX' : 'smtps://user:password@smtp.example.com:465';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MailUrlError(`${label} is not a URL; write it like ${example}.`);
  }
  const scheme = (schemes as Record<string, { port: number; security: Security }>)[url.protocol];
  if (!scheme) throw new MailUrlError(`${label} must start with ${Object.keys(schemes).map((s) => `${s}//`).join(' or ')} (got "${url.protocol}//"); write it like ${example}.`);
  if (!url.hostname) throw new MailUrlError(`${label} names no host; write it like ${example}.`);
  if (url.search || url.hash) throw new MailUrlError(`${label} must not have a query or fragment ("${url.search}${url.hash}").`);
  const user = decode(url.username, label, 'user name');
  const password = decode(url.password, label, 'password');
  if (!user) throw new MailUrlError(`${label} names no user; write it like ${example} (percent-encode "@", ":" and "/" in the user name and password).`);
  if (!password) throw new MailUrlError(`${label} has no password; write it like ${example}.`);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port ? Number(url.port) : scheme.port;
  const loopback = isLoopbackHost(host);
  return {
    endpoint: { host, port, security: scheme.security, plaintextAllowed: scheme.security === 'starttls' && (loopback || opts.allowInsecure), user },
    password,
    path: decode(url.pathname, label, 'folder'),
  };
}

function decode(part: string, label: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new MailUrlError(`${label}: the ${what} holds a malformed percent-encoding.`);
  }
}

/** An IMAP URL: imaps:// (port 993) or imap:// (143, STARTTLS); the path is the folder to watch (default INBOX). */
export function parseImapUrl(value: string, opts: { allowInsecure: boolean }): { endpoint: ImapEndpoint; password: string } {
  const { endpoint, password, path } = parseServerUrl('imap', value, opts);
  const folder = path.replace(/^\//, '');
  if (folder.length > 500) throw new MailUrlError('--imap: the folder name is longer than 500 characters.');
  return { endpoint: { ...endpoint, folder: folder === '' ? 'INBOX' : folder }, password };
}

/** An SMTP URL: smtps:// (port 465) or smtp:// (587, STARTTLS); no path. */
export function parseSmtpUrl(value: string, opts: { allowInsecure: boolean }): { endpoint: SmtpEndpoint; password: string } {
  const { endpoint, password, path } = parseServerUrl('smtp', value, opts);
  if (path !== '' && path !== '/') throw new MailUrlError(`--smtp must not have a path (got "${path}").`);
  return { endpoint, password };
}

/** The URL as shown to operators: never a password. */
export function displayUrl(kind: 'imap' | 'smtp', e: ServerEndpoint & { folder?: string }): string {
  const scheme = e.security === 'tls' ? `${kind}s` : kind;
  const host = e.host.includes(':') ? `[${e.host}]` : e.host;
  const folder = kind === 'imap' && e.folder ? `/${encodeURIComponent(e.folder)}` : '';
  return `${scheme}://${encodeURIComponent(e.user)}@${host}:${e.port}${folder}`;
}

/** How the connection is protected, in words for a check's answer. */
export function describeSecurity(e: ServerEndpoint): string {
  if (e.security === 'tls') return 'TLS';
  return e.plaintextAllowed ? 'STARTTLS when offered, else without TLS' : 'STARTTLS (required)';
}
