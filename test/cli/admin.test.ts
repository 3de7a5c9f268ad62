import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { client, deliverEvents, useTestApp } from '../helpers/app.ts';
import { Member, Workspace } from '../../src/workspaces/entity.ts';
import { parseKey } from '../../src/workspaces/keys.ts';
import { ensureDatabase } from '../../src/db/embedded-postgres.ts';
import { migrationsList } from '../../src/db/migrations.ts';
import { admin, jsonOutput, migrateCli, UUID, type CliResult } from './run-cli.ts';
import { newTicket } from '../helpers/api.ts';

/**
 * The admin CLI (docs/contract.md §7) as an operator runs it: a separate process on the run's test
 * database, checked through its stdout/stderr/exit code and through the real HTTP API.
 */
const app = useTestApp();
let env: Record<string, string>;

beforeAll(async () => {
  env = { DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'info' };
});

const run = (...args: string[]) => admin(args, env);

// Each CLI run is a Node process that loads the ORM and checks migrations: generous time on a busy machine.
const slow = { timeout: 120_000 };

async function newWorkspace(name = `cli-${randomUUID().slice(0, 8)}`): Promise<string> {
  const out = jsonOutput(await run('workspace', 'create', '--name', name, '--json'));
  return out.id as string;
}

async function newKey(workspaceId: string): Promise<{ id: string; key: string }> {
  const out = jsonOutput(await run('key', 'create', '--workspace', workspaceId, '--json'));
  return out as { id: string; key: string };
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.end();
  }
}

/**
 * A failed command: the message on stderr and the exit code; stdout empty, or with --json the
 * same failure as one JSON object.
 */
function expectFailure(result: CliResult, code: 1 | 2, message: RegExp): void {
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')[0]).toMatch(/^error: /);
  expect(result.code, result.stderr).toBe(code);
  if (result.stdout !== '') {
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: code === 2 ? 'invalid_usage' : 'command_failed', message: result.stderr.trim().split('\n')[0].replace(/^error: /, '') },
    });
    expect(result.stdout.endsWith('}\n') && result.stdout.split('\n').length === 2).toBe(true);
  }
}

describe('workspace create', slow, () => {
  it('prints exactly {"id","name"} and stores the workspace', async () => {
    const result = await run('workspace', 'create', '--name', 'Acme Support', '--json');
    const out = jsonOutput(result);
    expect(Object.keys(out)).toEqual(['id', 'name']);
    expect(out.id).toMatch(UUID);
    expect(out.name).toBe('Acme Support');

    const stored = await app.orm.em.fork().findOne(Workspace, { id: out.id as string });
    expect(stored?.name).toBe('Acme Support');
  });

  it('prints a sentence without --json', async () => {
    const result = await run('workspace', 'create', '--name', 'Plain');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Created workspace "Plain" \([0-9a-f-]{36}\)\.\n$/);
  });

  it('counts the name in code points: 200 emoji pass, 201 characters fail, blank fails', async () => {
    const emoji = '😀'.repeat(200);
    expect(jsonOutput(await run('workspace', 'create', '--name', emoji, '--json')).name).toBe(emoji);
    const [long, blank, empty] = await Promise.all([
      run('workspace', 'create', '--name', 'x'.repeat(201), '--json'),
      run('workspace', 'create', '--name', '   ', '--json'),
      run('workspace', 'create', '--name=', '--json'),
    ]);
    expectFailure(long, 1, /--name must be at most 200 characters \(got 201\)/);
    expectFailure(blank, 1, /--name must not be blank/);
    expectFailure(empty, 1, /--name must not be empty/);
  });
});

describe('API keys', slow, () => {
  it('creates a key that authenticates, and revoking it makes the same key answer 401', async () => {
    const workspaceId = await newWorkspace();
    const created = jsonOutput(await run('key', 'create', '--workspace', workspaceId, '--json'));
    expect(Object.keys(created)).toEqual(['id', 'key']);
    expect(created.id).toMatch(UUID);
    expect(created.key).toMatch(/^dfk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);

    const api = client(app.baseUrl, created.key as string);
    expect((await api.post('/api/v1/tickets', newTicket())).status).toBe(201);
    const listed = await api.get('/api/v1/tickets');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);

    const revoked = jsonOutput(await run('key', 'revoke', created.id as string, '--json'));
    expect(revoked).toEqual({ id: created.id, revoked: true });
    expect(Object.keys(revoked)).toEqual(['id', 'revoked']);
    const refused = await api.get('/api/v1/tickets');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');

    // Revoking again is harmless; without --json a sentence is printed.
    const again = await run('key', 'revoke', created.id as string);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`Revoked API key ${created.id} (${(created.key as string).slice(0, 20)}_…).\n`);
  });

  it('stores only a hash of the secret: neither the key nor its secret appears in any column', async () => {
    const workspaceId = await newWorkspace();
    const { id, key } = await newKey(workspaceId);
    const parsed = parseKey(key)!;
    expect(parsed).not.toBeNull();

    const rows = await app.orm.em.fork().getConnection().execute<Record<string, unknown>[]>('select * from api_keys where id = ?', [id]);
    expect(rows).toHaveLength(1);
    const values = Object.values(rows[0]).map((v) => (v instanceof Date ? v.toISOString() : String(v)));
    for (const value of values) {
      expect(value).not.toContain(key);
      expect(value).not.toContain(parsed.secret);
    }
    expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].lookup).toBe(parsed.lookup); // the public part that finds the row
  });

  it('takes an optional --name and prints the key with a shown-once note without --json', async () => {
    const workspaceId = await newWorkspace();
    const result = await run('key', 'create', '--workspace', workspaceId, '--name', 'zendesk import');
    expect(result.code, result.stderr).toBe(0);
    const key = /(dfk_[0-9a-f]{16}_[A-Za-z0-9_-]{43})/.exec(result.stdout)?.[1];
    expect(key).toBeDefined();
    expect(result.stdout).toMatch(/shown once/i);
    expect((await client(app.baseUrl, key).get('/api/v1/tickets')).status).toBe(200);

    const id = /API key ([0-9a-f-]{36})/.exec(result.stdout)![1];
    const rows = await app.orm.em.fork().getConnection().execute<{ name: string }[]>('select name from api_keys where id = ?', [id]);
    expect(rows[0].name).toBe('zendesk import');
  });

  it('refuses an unknown or malformed workspace id and an unknown key id (exit 1)', async () => {
    const unknown = randomUUID();
    const results = await Promise.all([
      run('key', 'create', '--workspace', unknown, '--json'),
      run('key', 'create', '--workspace', 'not-a-uuid', '--json'),
      run('key', 'revoke', unknown, '--json'),
      run('key', 'revoke', '42'),
    ]);
    expectFailure(results[0], 1, new RegExp(`^error: workspace not found: ${unknown}\n$`));
    expectFailure(results[1], 1, /^error: workspace not found: not-a-uuid\n$/);
    expectFailure(results[2], 1, new RegExp(`^error: API key not found: ${unknown}\n$`));
    expectFailure(results[3], 1, /^error: API key not found: 42\n$/);
    // --json: the failure is also the one JSON object on stdout; without it stdout stays empty.
    expect(JSON.parse(results[0].stdout)).toEqual({ error: { code: 'command_failed', message: `workspace not found: ${unknown}` } });
    expect(results[3].stdout).toBe('');
  });
});

describe('members', slow, () => {
  it('add (default role member) lets tickets be assigned to the user; remove makes the same PATCH 403', async () => {
    const workspaceId = await newWorkspace();
    const { key } = await newKey(workspaceId);
    const api = client(app.baseUrl, key);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;

    expect((await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'agent-7' })).status).toBe(403);

    const added = jsonOutput(await run('member', 'add', '--workspace', workspaceId, '--user', 'agent-7', '--json'));
    expect(added).toEqual({ workspaceId, userId: 'agent-7', role: 'member' });
    expect(Object.keys(added)).toEqual(['workspaceId', 'userId', 'role']);

    const assigned = await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'agent-7' });
    expect(assigned.status).toBe(200);
    expect(assigned.body.data.assignedTo).toBe('agent-7');

    const removed = jsonOutput(await run('member', 'remove', '--workspace', workspaceId, '--user', 'agent-7', '--json'));
    expect(removed).toEqual({ workspaceId, userId: 'agent-7', removed: true });
    expect(Object.keys(removed)).toEqual(['workspaceId', 'userId', 'removed']);

    const refused = await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'agent-7' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');

    expectFailure(
      await run('member', 'remove', '--workspace', workspaceId, '--user', 'agent-7'),
      1,
      new RegExp(`user "agent-7" is not a member of workspace ${workspaceId}`),
    );
  });

  it('--role admin makes an admin (also of an existing member); admins are assignable', async () => {
    const workspaceId = await newWorkspace();
    const { key } = await newKey(workspaceId);
    expect(jsonOutput(await run('member', 'add', '--workspace', workspaceId, '--user', 'lead', '--json')).role).toBe('member');
    const promoted = jsonOutput(await run('member', 'add', '--workspace', workspaceId, '--user', 'lead', '--role', 'admin', '--json'));
    expect(promoted).toEqual({ workspaceId, userId: 'lead', role: 'admin' });
    const members = await app.orm.em.fork().find(Member, { workspace: workspaceId });
    expect(members.map((m) => [m.userId, m.role])).toEqual([['lead', 'admin']]);

    const api = client(app.baseUrl, key);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    expect((await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'lead' })).status).toBe(200);

    const plain = await run('member', 'add', '--workspace', workspaceId, '--user', 'second', '--role', 'member');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(`User "second" is now a member of workspace ${workspaceId}.\n`);
  });

  it('refuses an invalid role or user id, and an unknown workspace (exit 1)', async () => {
    const workspaceId = await newWorkspace();
    const unknown = randomUUID();
    const add = (...args: string[]) => run('member', 'add', '--workspace', workspaceId, ...args);
    const cases: Array<[Promise<CliResult>, RegExp]> = [
      [add('--user', 'u1', '--role', 'owner', '--json'), /--role must be one of: member, admin \(got "owner"\)/],
      [add('--user', ' u1', '--json'), /--user must not start or end with whitespace/],
      [add('--user', '   ', '--json'), /--user must not be blank/],
      [add('--user', 'u'.repeat(201), '--json'), /--user must be at most 200 characters/],
      [add('--user', 'ai', '--json'), /reserved for the AI agent/],
      [run('member', 'add', '--workspace', unknown, '--user', 'u1', '--json'), new RegExp(`workspace not found: ${unknown}`)],
      [run('member', 'add', '--workspace', 'nope', '--user', 'u1'), /workspace not found: nope/],
      [run('member', 'remove', '--workspace', 'nope', '--user', 'u1'), /workspace not found: nope/],
      [run('member', 'remove', '--workspace', unknown, '--user', 'u1', '--json'), /workspace not found/],
    ];
    const results = await Promise.all(cases.map(([result]) => result));
    results.forEach((result, i) => expectFailure(result, 1, cases[i][1]));
    expect(await app.orm.em.fork().count(Member, { workspace: workspaceId })).toBe(0);
  });
});

describe('search rebuild', slow, () => {
  it('rebuilds the documents a delivery left out, of one workspace or all, and then finds nothing left to do', async () => {
    const workspaceId = await newWorkspace();
    const api = client(app.baseUrl, (await newKey(workspaceId)).key);
    const ids: string[] = [];
    for (const word of ['quokka', 'axolotl']) ids.push((await api.post('/api/v1/tickets', newTicket({ subject: `The ${word} is missing`, body: 'Since Monday.' }))).body.data.id);
    expect(await deliverEvents(app, workspaceId)).toBe(2);
    expect((await api.get('/api/v1/tickets?q=quokka')).body.pagination.total).toBe(1);

    // What a worker of a release before the search leaves: its events delivered, no documents.
    await query(env.DATABASE_URL, `delete from "ticket_search" where "ticket_id" in ('${ids.join("','")}')`);
    expect((await api.get('/api/v1/tickets?q=quokka')).body.pagination.total).toBe(0);

    const rebuilt = jsonOutput(await run('search', 'rebuild', '--workspace', workspaceId, '--json'));
    expect(rebuilt).toEqual({ workspaceId, checked: 2, rebuilt: 2 });
    expect((await api.get('/api/v1/tickets?q=quokka')).body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect((await api.get('/api/v1/tickets?q=axolotl')).body.data.map((t: { id: string }) => t.id)).toEqual([ids[1]]);

    const again = await run('search', 'rebuild', '--workspace', workspaceId);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(`Looked at 2 ticket(s) of workspace ${workspaceId}; rebuilt 0 search document(s).`);
    // Without --workspace: every workspace's tickets (other tests' among them).
    const all = jsonOutput(await run('search', 'rebuild', '--json'));
    expect(all.workspaceId).toBeNull();
    expect(all.checked as number).toBeGreaterThanOrEqual(2);
  });
});

describe.concurrent('usage', slow, () => {
  // Usage errors are found before any database is opened: an unreachable DATABASE_URL does not matter.
  const offline = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
  const usage = (...args: string[]) => admin(args, offline);

  it.each([
    [['workspace', 'create', '--json'], /--name is required\. Usage: .*workspace create --name NAME/],
    [['workspace', 'create', '--name'], /--name <value>' argument missing/],
    [['workspace', 'create', '--name', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['workspace', 'create', '--name', 'x', 'extra'], /Unexpected argument 'extra'/],
    [['workspace', 'create', '--name', 'a', '--name', 'b'], /--name is given more than once/],
    [['workspace', 'rename'], /unknown action "workspace rename"; actions: create, list/],
    [['workspace'], /"workspace" needs an action: create, list/],
    [['tickets', 'list'], /unknown command "tickets"/],
    [['--json'], /unknown command "--json"/],
    [['key', 'create', '--json'], /--workspace is required/],
    [['key', 'revoke'], /KEY_ID\|dfk_PUBLIC is required/],
    [['key', 'revoke', 'a', 'b'], /unexpected argument "b"/],
    [['member', 'add', '--workspace', 'w'], /--user is required/],
    [['member', 'remove', '--user', 'u'], /--workspace is required/],
    [['member', 'add', '--workspace', 'w', '--user', 'u', '--json=yes'], /'--json' does not take an argument/],
  ])('%j exits 2 with a message', async (args, message) => {
    const result = await usage(...args);
    expectFailure(result, 2, message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('with no arguments prints the usage on stderr and exits 2', async () => {
    const result = await usage();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: a command is required/);
    expect(result.stderr).toContain('workspace create --name NAME');
  });

  it('--help prints the usage on stdout and exits 0, at every level', async () => {
    const top = await usage('--help');
    expect(top.code).toBe(0);
    expect(top.stderr).toBe('');
    for (const line of [
      'workspace create --name NAME [--json]',
      'workspace list [--json]',
      'key create --workspace ID|NAME [--name N] [--json]',
      'key list --workspace ID|NAME [--json]',
      'key revoke KEY_ID|dfk_PUBLIC [--json]',
      'member add --workspace ID|NAME --user USER_ID [--role member|admin] [--json]',
      'member remove --workspace ID|NAME --user USER_ID [--json]',
      'search rebuild [--workspace ID|NAME] [--json]',
    ]) {
      expect(top.stdout).toContain(line);
    }
    const group = await usage('member', '-h');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('member add');
    expect(group.stdout).not.toContain('key create');
    const command = await usage('key', 'create', '--help');
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/^Usage: npm run admin -- key create --workspace ID\|NAME \[--name N\] \[--json\]/);
  });
});

describe('failures of the database', slow, () => {
  it('an unreachable database is one line on stderr and exit 1, not a hang', async () => {
    const result = await admin(['workspace', 'create', '--name', 'x', '--json'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 20_000);
    expectFailure(result, 1, /^error: could not connect to the database: .*ECONNREFUSED/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('npm run migrate', slow, () => {
  it('applies every migration to an empty database and prints their names; a second run applies none', async () => {
    const serverUrl = inject('databaseUrl');
    const database = `${new URL(serverUrl).pathname.slice(1)}_migrate`;
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    await ensureDatabase(serverUrl, database);
    try {
      const fresh = { DATABASE_URL: url.toString() };
      const first = await migrateCli([], fresh);
      expect(first.code, first.stderr).toBe(0);
      const names = migrationsList.map((m) => m.name);
      expect(first.stdout).toBe(`Applied ${names.length} migration(s):\n${names.map((n) => `  ${n}`).join('\n')}\n`);
      expect(jsonOutput(await migrateCli(['--json'], fresh))).toEqual({ applied: [] });
      // Migrating never creates the server's default workspace.
      const rows = await query(url.toString(), 'select count(*)::int as n from workspaces');
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await query(serverUrl, `drop database if exists "${database}" with (force)`);
    }
  });

  it('reports nothing pending on a migrated database', async () => {
    expect(jsonOutput(await migrateCli(['--json'], env))).toEqual({ applied: [] });
    const plain = await migrateCli([], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('No pending migrations; the schema is up to date.\n');
    const bad = await migrateCli(['--force'], env);
    expectFailure(bad, 2, /Unknown option '--force'/);
  });
});
