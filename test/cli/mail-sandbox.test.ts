import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './run-cli.ts';

/**
 * docs/mail.md "Connect a mailbox": `node scripts/mail-sandbox.ts` needs Dovecot and Mailpit. One that
 * is missing is named with the command that installs it, instead of "spawn mailpit ENOENT".
 */
const sandbox = (env: Record<string, string>) =>
  promisify(execFile)(process.execPath, ['scripts/mail-sandbox.ts'], { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 30_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );

describe('the mail sandbox without its servers', () => {
  it('names what is missing with its install command, and exits 1 before starting anything', async () => {
    const result = await sandbox({ MAILPIT_PATH: '/nonexistent/mailpit', DOVECOT_PATH: '/nonexistent/dovecot' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The mail sandbox did not start: it needs what is not installed here.');
    expect(result.stderr).toContain('Mailpit v1.27.11 (SMTP server: the mail tests, the mail sandbox): go install github.com/axllent/mailpit@v1.27.11   (or set MAILPIT_PATH to where it is)');
    expect(result.stderr).toContain('Dovecot (IMAP server: the mail tests, the mail sandbox): sudo apt-get install -y dovecot-imapd   (or set DOVECOT_PATH to where it is)');
    expect(result.stderr).not.toContain('ENOENT');
  });
});
