import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { freePort } from './ports.ts';

/**
 * Real mail servers for the tests (and `node scripts/mail-sandbox.ts`), each of a test file's
 * own on free 127.0.0.1 ports, in a temporary directory, stopped afterwards: Dovecot (Debian's dovecot-imapd) as the support
 * mailbox, Mailpit as the SMTP server whose REST API shows what was delivered. Both can be
 * stopped and started again on the same port with their state kept (an outage).
 */

const run = promisify(execFile);

async function waitForPort(port: number, timeoutMs: number, exited: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = exited();
    if (why) throw new Error(why);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing answered on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A server process of the test's own: started, stopped with SIGTERM (SIGKILL after 5 s), never another's. */
/** Process groups started here and not yet stopped: killed if the test process exits without stopping them. */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const group of liveGroups) {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

class OwnProcess {
  /** The process group: still to stop even when its leader has exited. */
  private group: number | null = null;
  private output = '';
  private exit: string | null = null;

  async start(command: string, args: string[], port: number): Promise<void> {
    this.output = '';
    this.exit = null;
    // A process group of its own: Dovecot's children (imap, log, stats) outlive a stopped master otherwise.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.group = child.pid ? -child.pid : null;
    if (this.group !== null) liveGroups.add(this.group);
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (err) => (this.exit = `${command} could not start: ${err.message}`));
    child.once('exit', (code, signal) => {
      this.exit ??= `${command} exited (${signal ?? code}): ${this.output.trim()}`;
    });
    await waitForPort(port, 20_000, () => (this.exit ? `${this.exit}` : null));
  }

  async stop(): Promise<void> {
    const group = this.group;
    if (group === null) return;
    const alive = () => {
      try {
        process.kill(group, 0);
        return true;
      } catch {
        return false;
      }
    };
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(group, sig);
      } catch {
        /* gone already */
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + 5_000;
    while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (alive()) signal('SIGKILL');
    while (alive()) await new Promise((resolve) => setTimeout(resolve, 20));
    liveGroups.delete(group);
    this.group = null;
  }
}

export type Dovecot = {
  port: number;
  user: string;
  password: string;
  folder: string;
  /** `imap://user:password@127.0.0.1:<port>/<folder>` (loopback: no TLS needed). */
  url: (folder?: string) => string;
  /** A new folder (each test's mailbox reads one of its own). */
  createFolder: (name: string) => Promise<void>;
  /** IMAP APPEND of a raw mail; returns its UID. */
  append: (raw: string, opts?: { folder?: string; flags?: string[] }) => Promise<number>;
  /** UIDs of the folder's mails with their flags. */
  flags: (folder?: string) => Promise<Map<number, string[]>>;
  /** Removes flags from mails of a folder. */
  removeFlags: (uids: number[], flags: string[], folder?: string) => Promise<void>;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops the server, forgets the folder's UIDs (a new UIDVALIDITY, as after a server migration) and starts it again. */
  renumber: () => Promise<void>;
  destroy: () => Promise<void>;
};

export const DOVECOT = process.env.DOVECOT_PATH ?? '/usr/sbin/dovecot';

/** Dovecot serving one user with a maildir in a temporary directory; mail comes in by IMAP APPEND. */
export async function startDovecot(opts: { user?: string; password?: string; port?: number } = {}): Promise<Dovecot> {
  const user = opts.user ?? 'support';
  const password = opts.password ?? 'mailbox-password';
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-dovecot-'));
  const port = opts.port ?? (await freePort());
  // Mail is stored as the dovecot user when running as root (Dovecot refuses mail as root), else as us.
  const asRoot = process.getuid?.() === 0;
  const me = os.userInfo().username;
  await fs.chmod(dir, 0o755);
  await fs.mkdir(path.join(dir, 'mail'), { mode: 0o777 });
  await fs.chmod(path.join(dir, 'mail'), 0o777);
  await fs.writeFile(path.join(dir, 'passwd'), `${user}:{PLAIN}${password}::::::\n`, { mode: 0o644 });
  const config = [
    `base_dir = ${dir}/run`,
    `state_dir = ${dir}/state`,
    `log_path = ${dir}/dovecot.log`,
    'protocols = imap',
    'listen = 127.0.0.1',
    'ssl = no',
    'disable_plaintext_auth = no',
    'auth_mechanisms = plain login',
    `mail_location = maildir:${dir}/mail/%u`,
    'first_valid_uid = 1',
    'mail_max_userip_connections = 200',
    `default_login_user = ${asRoot ? 'dovenull' : me}`,
    `default_internal_user = ${asRoot ? 'dovecot' : me}`,
    'passdb {',
    '  driver = passwd-file',
    `  args = scheme=PLAIN username_format=%u ${dir}/passwd`,
    '}',
    'userdb {',
    '  driver = static',
    `  args = uid=${asRoot ? 'dovecot' : process.getuid?.()} gid=${asRoot ? 'dovecot' : process.getgid?.()} home=${dir}/mail/%u`,
    '}',
    'service imap-login {',
    '  inet_listener imap {',
    '    address = 127.0.0.1',
    `    port = ${port}`,
    '  }',
    '  inet_listener imaps {',
    '    port = 0',
    '  }',
    '}',
  ].join('\n');
  const configFile = path.join(dir, 'dovecot.conf');
  await fs.writeFile(configFile, config + '\n');
  await run('doveconf', ['-n', '-c', configFile]).catch((err: Error & { stderr?: string }) => {
    throw new Error(`Dovecot rejects the test configuration (is dovecot-imapd installed?): ${err.stderr ?? err.message}`);
  });

  const process_ = new OwnProcess();
  const start = async () => {
    await process_.start(DOVECOT, ['-F', '-c', configFile], port);
  };
  const connect = async () => {
    const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
    client.on('error', () => {});
    await client.connect();
    return client;
  };
  await start();
  return {
    port,
    user,
    password,
    folder: 'INBOX',
    url: (folder = 'INBOX') => `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(folder)}`,
    async createFolder(name) {
      const client = await connect();
      try {
        await client.mailboxCreate(name);
      } finally {
        await client.logout();
      }
    },
    async append(raw, opts = {}) {
      const client = await connect();
      try {
        const result = await client.append(opts.folder ?? 'INBOX', raw, opts.flags ?? []);
        if (!result || !result.uid) throw new Error('APPEND returned no UID');
        return result.uid;
      } finally {
        await client.logout();
      }
    },
    async removeFlags(uids, flags, folder = 'INBOX') {
      const client = await connect();
      try {
        const lock = await client.getMailboxLock(folder);
        try {
          await client.messageFlagsRemove(uids.join(','), flags, { uid: true });
        } finally {
          lock.release();
        }
      } finally {
        await client.logout();
      }
    },
    async flags(folder = 'INBOX') {
      const client = await connect();
      try {
        const lock = await client.getMailboxLock(folder);
        const found = new Map<number, string[]>();
        try {
          for await (const m of client.fetch('1:*', { uid: true, flags: true }, { uid: true })) found.set(m.uid, [...(m.flags ?? [])]);
        } finally {
          lock.release();
        }
        return found;
      } finally {
        await client.logout();
      }
    },
    stop: () => process_.stop(),
    start,
    async renumber() {
      await process_.stop();
      // Every folder's UID list and indexes (Maildir++: folders are .Name directories).
      const forget = async (folderDir: string) => {
        for (const name of await fs.readdir(folderDir)) {
          if (name.startsWith('dovecot')) await fs.rm(path.join(folderDir, name), { recursive: true, force: true });
          else if (name.startsWith('.') && name !== '.' && name !== '..') await forget(path.join(folderDir, name));
        }
      };
      await forget(path.join(dir, 'mail', user));
      // UIDVALIDITY is a timestamp: make sure the new one differs.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await start();
    },
    async destroy() {
      await process_.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export type MailpitMessage = {
  ID: string;
  MessageID: string;
  Subject: string;
  From: { Name: string; Address: string };
  To: Array<{ Name: string; Address: string }>;
  ReplyTo: Array<{ Name: string; Address: string }>;
  Created: string;
};

export type Mailpit = {
  smtpPort: number;
  httpPort: number;
  /** `smtp://user:password@127.0.0.1:<port>` (any credentials are accepted). */
  url: () => string;
  /** Delivered mail, newest first. */
  messages: () => Promise<MailpitMessage[]>;
  /** Every header of a delivered mail, by name as sent. */
  headers: (id: string) => Promise<Record<string, string[]>>;
  /** The text and HTML parts of a delivered mail. */
  bodies: (id: string) => Promise<{ Text: string; HTML: string }>;
  /**
   * Mailpit's chaos mode: each trigger answers that SMTP stage with `errorCode` at the given
   * probability (0 turns it off). Stages: Sender (MAIL FROM), Recipient (RCPT TO), Authentication.
   */
  chaos: (triggers: Partial<Record<'Sender' | 'Recipient' | 'Authentication', { ErrorCode: number; Probability: number }>>) => Promise<void>;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  destroy: () => Promise<void>;
};

/** Mailpit (`go install github.com/axllent/mailpit@v1.27.11`, at MAILPIT_PATH or on PATH) with chaos mode on. */
export async function startMailpit(opts: { smtpPort?: number; httpPort?: number } = {}): Promise<Mailpit> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-mailpit-'));
  const smtpPort = opts.smtpPort ?? (await freePort());
  const httpPort = opts.httpPort ?? (await freePort());
  const binary = process.env.MAILPIT_PATH ?? 'mailpit';
  const process_ = new OwnProcess();
  const start = () =>
    process_.start(
      binary,
      [
        '--smtp', `127.0.0.1:${smtpPort}`,
        '--listen', `127.0.0.1:${httpPort}`,
        '--database', path.join(dir, 'mailpit.db'),
        '--smtp-auth-accept-any', '--smtp-auth-allow-insecure',
        '--enable-chaos', '--disable-version-check', '--quiet',
      ],
      smtpPort,
    ).then(() => waitForPort(httpPort, 10_000, () => null));
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`Mailpit ${method} ${route}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  };
  await start();
  return {
    smtpPort,
    httpPort,
    url: () => `smtp://deskflow:smtp-password@127.0.0.1:${smtpPort}`,
    messages: async () => ((await api('GET', '/messages?limit=500')) as { messages: MailpitMessage[] }).messages,
    headers: (id) => api('GET', `/message/${id}/headers`),
    bodies: (id) => api('GET', `/message/${id}`),
    chaos: async (triggers) => {
      const off = { ErrorCode: 451, Probability: 0 };
      await api('PUT', '/chaos', { Sender: triggers.Sender ?? off, Recipient: triggers.Recipient ?? off, Authentication: triggers.Authentication ?? off });
    },
    stop: () => process_.stop(),
    start,
    async destroy() {
      await process_.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A raw mail as a customer's mail program would send it (CRLF line ends). */
export function rawMail(opts: {
  from?: string;
  to?: string;
  subject?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
  body?: string;
  html?: string;
  headers?: Record<string, string>;
  date?: Date;
}): string {
  const boundary = 'deskflow-test-boundary';
  const head = [
    `From: ${opts.from ?? 'Casey Customer <casey@example.com>'}`,
    `To: ${opts.to ?? 'Acme Support <support@acme.example>'}`,
    `Subject: ${opts.subject ?? 'Printer on fire'}`,
    `Date: ${(opts.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${opts.messageId ?? `<${Math.random().toString(36).slice(2)}.${Date.now()}@example.com>`}`,
    ...(opts.inReplyTo ? [`In-Reply-To: ${opts.inReplyTo}`] : []),
    ...(opts.references ? [`References: ${opts.references}`] : []),
    ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
  ];
  const text = opts.body ?? 'It started smoking this morning.';
  if (opts.html === undefined) return [...head, 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', text, ''].join('\r\n');
  return [
    ...head,
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    '',
    opts.html,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
