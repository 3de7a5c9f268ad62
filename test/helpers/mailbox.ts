import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { MailWorker, type PendingDeliveries } from '../../src/mail/mail-worker.ts';
import { MailboxService, type MailboxView } from '../../src/mail/mailboxes.ts';
import { SecretBox } from '../../src/mail/secrets.ts';
import { parseImapUrl, parseSmtpUrl } from '../../src/mail/urls.ts';
import { createServices } from '../../src/services.ts';
import { startDovecot, startMailpit, type Dovecot, type Mailpit } from './mail-servers.ts';
import { useFixture } from './fixture.ts';

/** One key for the test process, as one DESKFLOW_SECRET_KEY is for every process of a deployment. */
export const testSecrets = new SecretBox(randomBytes(32));

/**
 * A mailbox of `workspaceId` on a folder of its own of the test's Dovecot, sending through
 * its Mailpit, added as `admin mailbox add` adds one (both connections checked).
 */
export async function connectMailbox(
  orm: MikroORM,
  servers: { dovecot: Dovecot; mailpit: Mailpit },
  workspaceId: string,
  opts: { address?: string; name?: string | null; plusAddressing?: boolean; folder?: string } = {},
): Promise<MailboxView & { folder: string }> {
  const folder = opts.folder ?? `Support-${randomUUID().slice(0, 8)}`;
  if (folder !== 'INBOX') await servers.dovecot.createFolder(folder);
  const imap = parseImapUrl(servers.dovecot.url(folder), { allowInsecure: false });
  const smtp = parseSmtpUrl(servers.mailpit.url(), { allowInsecure: false });
  const mailbox = await new MailboxService(orm.em.fork(), { secrets: () => testSecrets }).add({
    workspaceId,
    address: opts.address ?? 'support@acme.example',
    name: opts.name === undefined ? 'Acme Support' : opts.name,
    imap: imap.endpoint,
    imapCredential: { kind: 'password', password: imap.password },
    smtp: smtp.endpoint,
    smtpCredential: { kind: 'password', password: smtp.password },
    plusAddressing: opts.plusAddressing ?? false,
  });
  return { ...mailbox, folder };
}

/** A mail worker reading the mailboxes of the given workspaces only, quick to poll and scan. */
export function startMailWorker(
  orm: MikroORM,
  workspaceIds: ReadonlySet<string>,
  opts: { pollMs?: number; maxMailBytes?: number; deliveries?: PendingDeliveries; databaseUrl?: string } = {},
): MailWorker {
  const logger = createLogger('silent');
  const worker = new MailWorker({
    orm,
    logger,
    services: (em) => createServices(em, { logger }),
    databaseUrl: opts.databaseUrl ?? inject('databaseUrl'),
    secrets: () => testSecrets,
    pollMs: opts.pollMs ?? 1_000,
    scanMs: 200,
    workspaceIds,
    maxMailBytes: opts.maxMailBytes,
    deliveries: opts.deliveries,
  });
  worker.start();
  return worker;
}

/** Dovecot and Mailpit of a test file, started before its tests and stopped after them. */
export function useMailServers(): { dovecot: Dovecot; mailpit: Mailpit } {
  const dovecot = useFixture(() => startDovecot(), (d) => d.destroy());
  const mailpit = useFixture(() => startMailpit(), (m) => m.destroy());
  return { dovecot, mailpit };
}
