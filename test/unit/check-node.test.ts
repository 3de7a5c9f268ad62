import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../cli/run-cli.ts';

const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

/** scripts/check-node.js as an older Node runs it: this Node, told it is v20.11.1. */
const asOldNode = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.1"});Object.defineProperty(process,"version",{value:"v20.11.1"})';

describe('the Node.js version check of the npm scripts', () => {
  it('runs first in every script that starts TypeScript', () => {
    for (const name of ['start', 'start:api', 'start:worker', 'migrate', 'admin', 'test', 'test:faults']) {
      expect(pkg.scripts[name], name).toMatch(/^node scripts\/check-node\.js && /);
    }
    expect(fs.readFileSync(path.join(repoRoot, '.nvmrc'), 'utf8').trim()).toBe('24');
  });

  it('names the version needed on an older Node, instead of ERR_UNKNOWN_FILE_EXTENSION', async () => {
    const failed = await run(process.execPath, ['--import', asOldNode, 'scripts/check-node.js'], { cwd: repoRoot }).catch((err) => err);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'Deskflow needs Node.js 24 or newer; this is Node.js v20.11.1.\n' +
        'Switch with `nvm use` (the version is in .nvmrc) or install Node.js 24 LTS from https://nodejs.org.\n',
    );
  });

  it('lets Node 24 through without a word', async () => {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-node.js'], { cwd: repoRoot });
    expect(stdout + stderr).toBe('');
  });
});
