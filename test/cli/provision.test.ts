import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './run-cli.ts';

/**
 * `npm test` (and test:cluster, test:faults, bench) run scripts/provision.ts first. What it cannot
 * install stops it at once, before any build, with the command that installs it; what the
 * environment names is used as it is. Run with a PATH of Node alone and a HOME of its own, so
 * that it finds neither Go, apt-get nor any binary built on this machine, and installs nothing.
 */
let home: string;
let bin: string;
beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-provision-'));
  bin = path.join(home, 'bin');
  await fs.mkdir(bin);
  await fs.symlink(process.execPath, path.join(bin, 'node'));
});
afterAll(() => fs.rm(home, { recursive: true, force: true }));

const provision = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, ['scripts/provision.ts', ...args], { cwd: repoRoot, env: { HOME: home, PATH: bin, ...env }, timeout: 30_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );

describe('scripts/provision.ts', () => {
  it('stops at once with the command that installs what is missing, building nothing', async () => {
    const result = await provision(['test'], { CHROMIUM_PATH: '/nonexistent/chromium', DOVECOT_PATH: '/nonexistent/dovecot' });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'The tests need what this machine lacks, and this user cannot install it (there is no apt-get):',
      '  - Dovecot (IMAP server: the mail tests, the mail sandbox)',
      '  - Chromium (the tests that open a page)',
      '  - Go, to build the Temporal CLI v1.5.1 (dev server), the Temporal Web UI server 2.34.0, Mailpit v1.27.11 (SMTP server: the mail tests, the mail sandbox)',
      'Install it with:',
      "  install dovecot-imapd, chromium, golang-go with the system's package manager (Go 1.21 or newer: https://go.dev/dl), then run npm test",
      '',
    ]);
    await expect(fs.access(path.join(home, '.cache'))).rejects.toThrow();
  });

  it('uses what the environment names, and has nothing to do when everything is there', async () => {
    const named = Object.fromEntries(
      ['TEMPORAL_CLI_PATH', 'TEMPORAL_SERVER_PATH', 'TEMPORAL_SQL_TOOL_PATH', 'TEMPORAL_UI_SERVER_PATH', 'MAILPIT_PATH', 'DOVECOT_PATH', 'CHROMIUM_PATH'].map((name) => [name, process.execPath]),
    );
    expect(await provision([], named)).toEqual({ code: 0, stderr: '' });
  });

  it('refuses an unknown suite (exit 2)', async () => {
    expect(await provision(['tests'])).toEqual({ code: 2, stderr: 'provision: unknown suite "tests"; suites: test, cluster, faults, bench\n' });
  });
});
