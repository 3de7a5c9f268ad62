import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createWorkspace, useTestApp } from '../helpers/app.ts';
import { repoRoot } from '../cli/run-cli.ts';

/**
 * The README's webhook example, run as a reader runs it: its shell blocks in order (set-up,
 * a ticket, the webhook workflow, then the Node.js sender), in one bash, against a real server.
 */
const blocks = [...fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const block = (what: string, test: (text: string) => boolean) => {
  const found = blocks.find(test);
  if (!found) throw new Error(`README has no shell block for ${what}`);
  return found;
};

const app = useTestApp();

describe('README', () => {
  it('the Node.js webhook sender runs as written after the shell steps', async () => {
    const { key } = await createWorkspace(app.orm);
    const script = [
      block('the set-up', (b) => b.includes('export DESKFLOW_KEY=')),
      // What the reader pastes into the set-up: their key, and here the test server's address.
      `DESKFLOW_KEY='${key}'`,
      `BASE='${app.baseUrl}'`,
      block('a ticket', (b) => b.startsWith('TICKET=$(')),
      block('the webhook workflow', (b) => b.startsWith('HOOK=$(')),
      block('the Node.js sender', (b) => b.includes('node --input-type=module')),
      'echo "ticket=$TICKET"',
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: repoRoot, timeout: 60_000 });
    const ticket = /^ticket=(\S+)$/m.exec(stdout)?.[1];
    expect(ticket).toMatch(/^[0-9a-f-]{36}$/);
    // The signed request was accepted and names the ticket the shell steps created.
    expect(stdout).toMatch(/202 \{\s+execution: \{/);
    expect(stdout).toContain(`ticketId: '${ticket}'`);
    expect(stdout).toContain("triggeredBy: 'webhook'");
  });
});
