import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import type { MailCredential } from './secrets.ts';
import type { ImapEndpoint, ServerEndpoint, SmtpEndpoint } from './urls.ts';

/**
 * Connections to a mailbox's servers: imapflow for IMAP, nodemailer for SMTP, with TLS as the
 * endpoint says (src/mail/urls.ts: STARTTLS is required unless plaintext was allowed) and
 * certificates always verified. Neither library logs anything of ours.
 */

export function imapClient(endpoint: ImapEndpoint, credential: MailCredential): ImapFlow {
  return new ImapFlow({
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.security === 'tls',
    // true: STARTTLS or no connection; undefined: STARTTLS when the server offers it.
    doSTARTTLS: endpoint.security === 'starttls' && !endpoint.plaintextAllowed ? true : undefined,
    auth: credential.kind === 'password' ? { user: endpoint.user, pass: credential.password } : { user: endpoint.user, accessToken: credential.accessToken },
    tls: { rejectUnauthorized: true },
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    // IDLE starts a second after the last command (not imapflow's 15 s): only while it runs does
    // the server announce new mail. It is renewed well within the socket timeout, so a silent
    // server is noticed within minutes.
    autoIdleDelay: 1_000,
    maxIdleTime: 4 * 60_000,
    socketTimeout: 5 * 60_000,
  });
}

export function smtpTransport(endpoint: SmtpEndpoint, credential: MailCredential) {
  return nodemailer.createTransport({
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.security === 'tls',
    requireTLS: endpoint.security === 'starttls' && !endpoint.plaintextAllowed,
    auth:
      credential.kind === 'password'
        ? { user: endpoint.user, pass: credential.password }
        : { type: 'OAuth2', user: endpoint.user, accessToken: credential.accessToken },
    tls: { rejectUnauthorized: true },
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
    logger: false,
    debug: false,
  });
}

/** A failed connection, in words: what the server or the network said, never a credential. */
export function connectionProblem(err: unknown): string {
  const e = err as { code?: string; message?: string; responseText?: string; response?: string; authenticationFailed?: boolean; responseCode?: number } | undefined;
  if (e?.authenticationFailed || e?.code === 'EAUTH') {
    return `authentication failed${e.responseText || e.response ? `: ${(e.responseText ?? e.response)!.trim()}` : ''}`;
  }
  const byCode: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name could not be resolved',
    ETIMEDOUT: 'timed out',
    CONNECT_TIMEOUT: 'timed out connecting',
    GREETING_TIMEOUT: 'the server sent no greeting',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
    ESOCKET: 'connection failed',
    ETLS: 'TLS failed',
    // imapflow's, when the server went away between two commands (a restart, a crash).
    NoConnection: 'the server closed the connection',
  };
  const detail = (e?.responseText ?? e?.response ?? e?.message ?? String(err)).replace(/\s+/g, ' ').trim();
  // A library's own code (ESOCKET) often wraps the system's (ECONNREFUSED in its message): the latter says more.
  const code = Object.keys(byCode).find((c) => c !== 'ESOCKET' && detail.includes(c)) ?? e?.code;
  const base = (code && byCode[code]) ?? '';
  return base && !detail.toLowerCase().startsWith(base) ? `${base} (${detail})` : detail || base || 'failed';
}

/**
 * Why a session that had its folder open failed. A command sent after the server's BYE and
 * before the socket closed is refused by the IMAP library as "No mailbox is selected" (the
 * BYE ended the selected state): the server closed the connection, and its BYE says why.
 */
export function sessionProblem(err: unknown, client: { byeReason?: string } | null): string {
  const bye = client?.byeReason;
  if (bye && (err as { code?: string } | undefined)?.code === 'NoMailboxSelected') return `the server closed the connection (${bye})`;
  return connectionProblem(err);
}

export class MailCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailCheckError';
  }
}

const where = (e: ServerEndpoint) => `${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;

/** Logs in, opens the folder and reads its cursor; throws a MailCheckError naming IMAP and why. */
export async function checkImap(endpoint: ImapEndpoint, credential: MailCredential): Promise<{ uidValidity: string; uidNext: number }> {
  const client = imapClient(endpoint, credential);
  client.on('error', () => {}); // reported through the failing call
  const failed = (why: string) => new MailCheckError(`IMAP check failed (${where(endpoint)}, user ${endpoint.user}): ${why}`);
  try {
    try {
      await client.connect();
    } catch (err) {
      throw failed(connectionProblem(err));
    }
    if (!client.secureConnection && !endpoint.plaintextAllowed) throw failed('the connection is not protected by TLS');
    try {
      const mailbox = await client.mailboxOpen(endpoint.folder, { readOnly: true });
      return { uidValidity: String(mailbox.uidValidity), uidNext: mailbox.uidNext };
    } catch (err) {
      // The server said NO to opening it: the folder is missing or not the user's to read.
      const text = ((err as { responseText?: string }).responseText ?? connectionProblem(err)).replace(/\s*\([\d.+ ]+secs\)\.?$/, '');
      throw failed(`folder "${endpoint.folder}" cannot be opened: ${text}`);
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** Connects, says EHLO, upgrades to TLS as required and logs in; throws a MailCheckError naming SMTP and why. */
export async function checkSmtp(endpoint: SmtpEndpoint, credential: MailCredential): Promise<void> {
  const transport = smtpTransport(endpoint, credential);
  try {
    await transport.verify();
  } catch (err) {
    throw new MailCheckError(`SMTP check failed (${where(endpoint)}, user ${endpoint.user}): ${connectionProblem(err)}`);
  } finally {
    transport.close();
  }
}
