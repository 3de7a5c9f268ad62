import { z } from 'zod';
import { email } from '../http/validate.ts';
import { MailUrlError, parseImapUrl, parseSmtpUrl } from '../mail/urls.ts';
import type { MailboxService } from '../mail/mailboxes.ts';
import { checkName, optionalOption, requiredOption, requireWorkspace, type CommandGroup, type CommandServices } from './command.ts';
import { CommandError } from './errors.ts';

/**
 * `mailbox add | list | remove`: the support mailboxes of a workspace (docs in docs/mail.md, "Connect
 * a mailbox"). Passwords come in the URLs, are sealed at once and are never printed again.
 */

function parseUrls(args: { imap: string; smtp: string; allowInsecure: boolean }) {
  try {
    return { imap: parseImapUrl(args.imap, args), smtp: parseSmtpUrl(args.smtp, args) };
  } catch (err) {
    if (err instanceof MailUrlError) throw new CommandError(err.message);
    throw err;
  }
}

function checkAddress(value: string): string {
  const result = email('--address').safeParse(value);
  if (!result.success) throw new CommandError(result.error.issues[0]?.message ?? '--address is invalid.');
  return result.data;
}

/** Errors of the mail module (a failed connection check, a duplicate, a missing key) are the command's failure. */
async function asCommand<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const name = (err as Error | undefined)?.name;
    if (name === 'MailboxError' || name === 'SecretKeyError') throw new CommandError((err as Error).message);
    throw err;
  }
}

const mailboxes = (services: CommandServices) => {
  if (!services.mailboxes) throw new Error('mailbox commands need the mailbox service');
  return services.mailboxes();
};

type View = Awaited<ReturnType<MailboxService['list']>>[number];

function describe(m: View): string {
  const lines = [
    `${m.id}  ${m.address}${m.name ? ` "${m.name}"` : ''}  ${m.state}${m.lastFetchAt ? `, last fetch ${m.lastFetchAt}` : ', not read yet'}`,
    `  IMAP ${m.imap}`,
    `  SMTP ${m.smtp}${m.plusAddressing ? ' (replies to sub-addresses)' : ''}`,
    `  mails: ${m.mails.imported} imported, ${m.mails.ignored} ignored (duplicates, own, bounces, automatic), ${m.mails.skipped} skipped`,
  ];
  if (m.lastError) lines.push(`  last error (${m.lastErrorAt}): ${m.lastError}`);
  if (m.lastSkipped) lines.push(`  last skipped (${m.lastSkipped.at}, ${m.lastSkipped.outcome}): ${m.lastSkipped.detail ?? ''}`);
  return lines.join('\n');
}

export const mailboxCommands: CommandGroup = {
  name: 'mailbox',
  commands: {
    add: {
      usage: '--workspace ID|NAME --address EMAIL [--name NAME] --imap URL --smtp URL [--allow-insecure] [--plus-addressing]',
      summary:
        'Connect a support mailbox: mail to it becomes tickets, replies go out through it. URLs: imaps://user:password@host:993/INBOX (or imap://, STARTTLS), smtps://user:password@host:465 (or smtp://…:587, STARTTLS). Both connections are checked first.',
      options: {
        workspace: { type: 'string' },
        address: { type: 'string' },
        name: { type: 'string' },
        imap: { type: 'string' },
        smtp: { type: 'string' },
        'allow-insecure': { type: 'boolean' },
        'plus-addressing': { type: 'boolean' },
      },
      prepare(args) {
        const workspaceArg = requiredOption(args, 'workspace');
        const address = checkAddress(requiredOption(args, 'address'));
        const givenName = optionalOption(args, 'name');
        const name = givenName === undefined ? null : checkName(givenName, '--name');
        const allowInsecure = args.values['allow-insecure'] === true;
        const urls = parseUrls({ imap: requiredOption(args, 'imap'), smtp: requiredOption(args, 'smtp'), allowInsecure });
        const plusAddressing = args.values['plus-addressing'] === true;
        return async (services) => {
          const workspaceId = await requireWorkspace(services.workspaces, workspaceArg);
          const service = await mailboxes(services);
          const mailbox = await asCommand(() =>
            service.add({
              workspaceId,
              address,
              name,
              imap: urls.imap.endpoint,
              imapCredential: { kind: 'password', password: urls.imap.password },
              smtp: urls.smtp.endpoint,
              smtpCredential: { kind: 'password', password: urls.smtp.password },
              plusAddressing,
            }),
          );
          return {
            json: mailbox,
            text: `Connected mailbox ${mailbox.address} (${mailbox.id}) to workspace ${workspaceId}: IMAP and SMTP answered. Mail arriving from now on becomes tickets once a worker runs.`,
          };
        };
      },
    },
    list: {
      usage: '--workspace ID|NAME',
      summary: 'List the mailboxes of a workspace: address, name, state, last error, last fetch and skipped mail (never a password).',
      options: { workspace: { type: 'string' } },
      prepare(args) {
        const workspaceArg = requiredOption(args, 'workspace');
        return async (services) => {
          const workspaceId = await requireWorkspace(services.workspaces, workspaceArg);
          const list = await (await mailboxes(services)).list(workspaceId);
          return { json: { mailboxes: list }, text: list.length ? list.map(describe).join('\n') : `Workspace ${workspaceId} has no mailbox.` };
        };
      },
    },
    remove: {
      usage: 'MAILBOX_ID',
      summary: 'Disconnect a mailbox: its mail is no longer read and replies are no longer sent through it. Tickets stay.',
      options: {},
      positionals: ['MAILBOX_ID'],
      prepare(args) {
        const id = z.string().parse(args.positionals[0]);
        return async (services) => {
          const service = await mailboxes(services);
          const removed = await asCommand(() => service.remove(id));
          return { json: { id: removed.id, address: removed.address, removed: true }, text: `Removed mailbox ${removed.address} (${removed.id}).` };
        };
      },
    },
  },
};
