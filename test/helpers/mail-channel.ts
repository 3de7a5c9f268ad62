import { afterEach } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { MailWorker } from '../../src/mail/mail-worker.ts';
import { PendingMailDeliveries } from '../../src/mail/outbound.ts';
import { engineWorkspace, type EngineApp } from './engine.ts';
import { connectMailbox, startMailWorker, useMailServers } from './mailbox.ts';

/**
 * The mail channel of a test file on `app`: the file's Dovecot and Mailpit, and workspaces
 * each with a mailbox and a mail worker that also delivers the replies. After each test Mailpit
 * is well again and the workers are stopped.
 */
export function useMailChannel(app: EngineApp) {
  const servers = useMailServers();
  const workers: MailWorker[] = [];
  afterEach(async () => {
    await servers.mailpit.chaos({});
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  /** A fresh workspace of `app` with the given members, its mailbox (see connectMailbox) and its mail worker. */
  async function withMailbox(members: Array<{ userId: string; role?: 'member' | 'admin' }> = [], opts: { plusAddressing?: boolean } = {}) {
    const { ws, api } = await engineWorkspace(app, members);
    const mailbox = await connectMailbox(app.orm, servers, ws.workspaceId, opts);
    workers.push(startMailWorker(app.orm, new Set([ws.workspaceId]), { deliveries: new PendingMailDeliveries({ orm: app.orm, starter: app.engine, logger: createLogger('silent') }) }));
    return { ws, api, mailbox };
  }
  return { ...servers, withMailbox };
}
