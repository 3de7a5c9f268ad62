import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { useMailServers } from '../helpers/mailbox.ts';
import { Mailbox } from '../../src/mail/entity.ts';
import { checkImap } from '../../src/mail/connections.ts';
import { insertReceipt, markError, markWatching } from '../../src/mail/store.ts';
import { admin, jsonOutput, UUID, type CliResult } from './run-cli.ts';

/**
 * `admin mailbox add | list | remove` as an operator runs them, against a real Dovecot (IMAP)
 * and Mailpit (SMTP): both connections are checked before anything is saved, a failure names
 * the connection and the reason, and a password is never printed or stored in the clear.
 */
const app = useTestApp();
const { dovecot, mailpit } = useMailServers();
let env: Record<string, string>;

beforeAll(() => {
  env = { DATABASE_URL: inject('databaseUrl'), DESKFLOW_SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'debug' };
});

const run = (...args: string[]) => admin(args, env);
// Each CLI run is a Node process that loads the ORM and checks migrations: generous time on a busy machine.
const slow = { timeout: 300_000 };

async function newWorkspace(): Promise<string> {
  return jsonOutput(await run('workspace', 'create', '--name', `mail-${randomUUID().slice(0, 8)}`, '--json')).id as string;
}

function expectFailure(result: CliResult, message: RegExp): void {
  expect(result.stderr, result.stderr).toMatch(message);
  expect(result.code).toBe(1);
}

const neverShown = (result: CliResult) => {
  for (const secret of [dovecot.password, 'smtp-password']) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
};

describe('mailbox add', slow, () => {
  it('checks both servers, saves the mailbox with its cursor and sealed passwords, and shows no password', async () => {
    const workspaceId = await newWorkspace();
    const result = await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'Support@Acme.example', '--name', 'Acme Support', '--imap', dovecot.url(), '--smtp', mailpit.url(), '--json');
    neverShown(result);
    const out = jsonOutput(result);
    expect(out).toMatchObject({
      workspaceId,
      address: 'support@acme.example',
      name: 'Acme Support',
      imap: `imap://support@127.0.0.1:${dovecot.port}/INBOX`,
      smtp: `smtp://deskflow@127.0.0.1:${mailpit.smtpPort}`,
      state: 'new',
      lastError: null,
      mails: { imported: 0, ignored: 0, skipped: 0 },
    });
    expect(out.id).toMatch(UUID);

    const stored = await app.orm.em.fork().findOneOrFail(Mailbox, { id: out.id as string });
    expect(stored.imapSecret).not.toContain(dovecot.password);
    expect(stored.smtpSecret).not.toContain('smtp-password');
    expect(stored.uidValidity).toMatch(/^\d+$/);
    expect(JSON.stringify(stored.imap)).not.toContain(dovecot.password);

    const listed = await run('mailbox', 'list', '--workspace', workspaceId);
    neverShown(listed);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${out.id}  support@acme.example "Acme Support"  new, not read yet`);
    expect(jsonOutput(await run('mailbox', 'list', '--workspace', workspaceId, '--json')).mailboxes).toEqual([out]);

    expectFailure(
      await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'support@acme.example', '--imap', dovecot.url(), '--smtp', mailpit.url()),
      /already has a mailbox for support@acme.example/,
    );
    expectFailure(
      await run('mailbox', 'add', '--workspace', await newWorkspace(), '--address', 'help@acme.example', '--imap', dovecot.url(), '--smtp', mailpit.url()),
      /folder INBOX of support on 127.0.0.1 is already connected/,
    );

    const removed = await run('mailbox', 'remove', out.id as string, '--json');
    expect(jsonOutput(removed)).toEqual({ id: out.id, address: 'support@acme.example', removed: true });
    expect(await app.orm.em.fork().count(Mailbox, { id: out.id as string })).toBe(0);
    expectFailure(await run('mailbox', 'remove', out.id as string), /mailbox not found/);
  });

  it('says which connection failed and why, and saves nothing', async () => {
    const workspaceId = await newWorkspace();
    const badImap = dovecot.url().replace(encodeURIComponent(dovecot.password), 'wrong-password');
    const imapFails = await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'a@acme.example', '--imap', badImap, '--smtp', mailpit.url());
    expectFailure(imapFails, new RegExp(`IMAP check failed \\(127\\.0\\.0\\.1:${dovecot.port}, user support\\): authentication failed`));
    expect(imapFails.stderr).not.toMatch(/SMTP check failed/);
    neverShown(imapFails);

    const closedPort = mailpit.url().replace(`:${mailpit.smtpPort}`, ':1');
    const smtpFails = await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'a@acme.example', '--imap', dovecot.url(), '--smtp', closedPort);
    expectFailure(smtpFails, /SMTP check failed \(127\.0\.0\.1:1, user deskflow\): connection refused/);
    expect(smtpFails.stderr).not.toMatch(/IMAP check failed/);

    const missingFolder = dovecot.url().replace(/INBOX$/, 'Nowhere');
    expectFailure(
      await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'a@acme.example', '--imap', missingFolder, '--smtp', closedPort),
      /IMAP check failed .*folder "Nowhere" cannot be opened: Mailbox doesn't exist: Nowhere; SMTP check failed .*connection refused/,
    );
    expect(await app.orm.em.fork().count(Mailbox, { workspace: workspaceId })).toBe(0);
  });

  it('refuses bad input before connecting, and a missing key with DATABASE_URL', async () => {
    const workspaceId = await newWorkspace();
    const base = ['mailbox', 'add', '--workspace', workspaceId, '--address', 'a@acme.example'];
    expectFailure(await run(...base, '--imap', 'http://u:p@x', '--smtp', mailpit.url()), /--imap must start with imaps:\/\/ or imap:\/\//);
    expectFailure(await run(...base, '--imap', 'imaps://u@imap.example', '--smtp', mailpit.url()), /--imap has no password/);
    expectFailure(await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'not-an-address', '--imap', dovecot.url(), '--smtp', mailpit.url()), /--address must be an email address/);
    const usage = await run('mailbox', 'add', '--workspace', workspaceId);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--address is required/);
    const noKey = await admin([...base, '--imap', dovecot.url(), '--smtp', mailpit.url()], { ...env, DESKFLOW_SECRET_KEY: undefined });
    expectFailure(noKey, /DESKFLOW_SECRET_KEY is not set/);
  });
});

describe('mailbox list', slow, () => {
  it('counts the same mail delivered again as ignored, not imported, and shows an error only until the mailbox recovers', async () => {
    const workspaceId = await newWorkspace();
    const folder = `List-${randomUUID().slice(0, 8)}`;
    await dovecot.createFolder(folder);
    const mailbox = jsonOutput(await run('mailbox', 'add', '--workspace', workspaceId, '--address', 'list@acme.example', '--imap', dovecot.url(folder), '--smtp', mailpit.url(), '--json'));
    const mailboxId = mailbox.id as string;
    const em = app.orm.em.fork();
    const receipt = { mailboxId, uidValidity: '1', rfcMessageId: '<twice@example.com>', size: 100, ticketId: null, messageId: null, detail: 'from casey@example.com: "Sent twice"' };
    await insertReceipt(em, { ...receipt, uid: 1, outcome: 'ticket' });
    await insertReceipt(em, { ...receipt, uid: 2, outcome: 'duplicate' });
    await markError(em, mailboxId, 'the IMAP server closed the connection');

    const down = await run('mailbox', 'list', '--workspace', workspaceId);
    expect(down.stdout).toContain('mails: 1 imported, 1 ignored (duplicates, own, bounces, automatic), 0 skipped');
    expect(down.stdout).toMatch(/last error \(.+\): the IMAP server closed the connection/);

    await markWatching(em, mailboxId);
    const back = jsonOutput(await run('mailbox', 'list', '--workspace', workspaceId, '--json')).mailboxes as Array<Record<string, unknown>>;
    expect(back[0]).toMatchObject({ state: 'watching', lastError: null, lastErrorAt: null, mails: { imported: 1, ignored: 1, skipped: 0 } });
  });
});

describe('TLS', () => {
  it('refuses a server without STARTTLS when TLS is required', async () => {
    const endpoint = { host: '127.0.0.1', port: dovecot.port, security: 'starttls' as const, plaintextAllowed: false, user: dovecot.user, folder: 'INBOX' };
    await expect(checkImap(endpoint, { kind: 'password', password: dovecot.password })).rejects.toThrow(/IMAP check failed .*STARTTLS/i);
    await expect(checkImap({ ...endpoint, plaintextAllowed: true }, { kind: 'password', password: dovecot.password })).resolves.toMatchObject({ uidNext: 1 });
  });
});
