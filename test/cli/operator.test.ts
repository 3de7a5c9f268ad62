import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { pgTimestamp } from '../../src/common/sql.ts';
import { parseKey } from '../../src/workspaces/keys.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, useTestApp } from '../helpers/app.ts';
import { admin, jsonOutput, UUID, type CliResult } from './run-cli.ts';
import { eventually } from '../helpers/poll.ts';

/**
 * The operator's side of the admin CLI (docs/admin-cli.md): finding a workspace and its keys,
 * seeing which key was used when, and revoking one by what `key list` shows, without SQL. Run
 * as separate processes on the run's test database, checked through the real HTTP API.
 */
const app = useTestApp();
let env: Record<string, string>;
beforeAll(() => {
  env = { DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'info' };
});
const run = (...args: string[]) => admin(args, env);
const slow = { timeout: 180_000 };

const uniqueName = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

async function newWorkspace(name = uniqueName('ops')): Promise<{ id: string; name: string }> {
  return jsonOutput(await run('workspace', 'create', '--name', name, '--json')) as { id: string; name: string };
}

async function newKey(workspace: string, name?: string): Promise<{ id: string; key: string }> {
  return jsonOutput(await run('key', 'create', '--workspace', workspace, ...(name ? ['--name', name] : []), '--json')) as { id: string; key: string };
}

type KeyRow = { id: string; prefix: string; name: string | null; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };

async function keysOf(workspace: string): Promise<KeyRow[]> {
  const out = jsonOutput(await run('key', 'list', '--workspace', workspace, '--json'));
  expect(Object.keys(out)).toEqual(['workspaceId', 'keys']);
  return out.keys as KeyRow[];
}

const lastUse = async (keyId: string): Promise<Date | null> => {
  const rows = await app.orm.em.fork().execute<Array<{ last_used_at: string | Date }>>('select last_used_at from api_key_usage where key_id = ?', [keyId]);
  return rows[0] ? pgTimestamp(rows[0].last_used_at) : null;
};

function expectFailure(result: CliResult, message: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(message);
}

describe('workspace list', slow, () => {
  it('lists every workspace, oldest first, as {"workspaces":[{"id","name","createdAt"}]}, and as a table without --json', async () => {
    const first = await newWorkspace();
    const second = await newWorkspace();
    const out = jsonOutput(await run('workspace', 'list', '--json'));
    expect(Object.keys(out)).toEqual(['workspaces']);
    const listed = out.workspaces as Array<{ id: string; name: string; createdAt: string }>;
    for (const w of listed) expect(Object.keys(w)).toEqual(['id', 'name', 'createdAt']);
    const ours = listed.filter((w) => w.id === first.id || w.id === second.id);
    expect(ours.map((w) => w.name)).toEqual([first.name, second.name]);
    expect(new Date(ours[0].createdAt).toISOString()).toBe(ours[0].createdAt);

    const text = await run('workspace', 'list');
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {2,}NAME {2,}CREATED$/);
    expect(lines.find((l) => l.startsWith(first.id))).toMatch(new RegExp(`^${first.id} {2,}${first.name} {2,}\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`));
  });
});

describe('workspace create', slow, () => {
  it('refuses a name another workspace has, naming it, and creates nothing (exit 1)', async () => {
    const first = await newWorkspace();
    const again = await run('workspace', 'create', '--name', first.name, '--json');
    expectFailure(again, new RegExp(`^error: a workspace named "${first.name}" already exists \\(${first.id}\\); choose another name\\n$`));
    expect(JSON.parse(again.stdout).error.code).toBe('command_failed');
    const listed = jsonOutput(await run('workspace', 'list', '--json')).workspaces as Array<{ name: string }>;
    expect(listed.filter((w) => w.name === first.name)).toHaveLength(1);
  });
});

describe('member list', slow, () => {
  it('lists the members of a workspace named by id or name, as {"workspaceId","members"} and as a table', async () => {
    const workspace = await newWorkspace();
    jsonOutput(await run('member', 'add', '--workspace', workspace.id, '--user', 'agent-1', '--json'));
    jsonOutput(await run('member', 'add', '--workspace', workspace.id, '--user', 'lead', '--role', 'admin', '--json'));

    const out = jsonOutput(await run('member', 'list', '--workspace', workspace.name, '--json'));
    expect(out).toEqual({
      workspaceId: workspace.id,
      members: [
        { userId: 'agent-1', role: 'member', createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
        { userId: 'lead', role: 'admin', createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
      ],
    });

    const text = await run('member', 'list', '--workspace', workspace.id);
    expect(text.code).toBe(0);
    const [header, ...rows] = text.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^USER {2,}ROLE {2,}ADDED$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^agent-1 {2,}member {2,}\S+Z$/);
    expect(rows[1]).toMatch(/^lead {2,}admin {2,}\S+Z$/);
  });

  it('says how to add one to a workspace without members, and refuses an unknown workspace', async () => {
    const workspace = await newWorkspace();
    expect(jsonOutput(await run('member', 'list', '--workspace', workspace.id, '--json'))).toEqual({ workspaceId: workspace.id, members: [] });
    expect((await run('member', 'list', '--workspace', workspace.id)).stdout).toBe(
      `Workspace ${workspace.id} has no members: add one with npm run admin -- member add --workspace ${workspace.id} --user USER_ID\n`,
    );
    expectFailure(await run('member', 'list', '--workspace', 'no-such-workspace-name'), /^error: workspace not found: no-such-workspace-name\n$/);
  });
});

describe('key list', slow, () => {
  it('shows each key of a workspace named by its name: id, public part, name, created, last used, revoked, and never a secret', async () => {
    const workspace = await newWorkspace();
    const ci = await newKey(workspace.name, 'ci');
    const plain = await newKey(workspace.id);

    const keys = await keysOf(workspace.name);
    expect(keys).toEqual([
      { id: ci.id, prefix: ci.key.slice(0, 20), name: 'ci', createdAt: expect.any(String), lastUsedAt: null, revokedAt: null },
      { id: plain.id, prefix: plain.key.slice(0, 20), name: null, createdAt: expect.any(String), lastUsedAt: null, revokedAt: null },
    ]);
    expect(keys[0].prefix).toMatch(/^dfk_[0-9a-f]{16}$/);

    // A request with the key: its last use is recorded (after the answer, without delaying it).
    expect((await client(app.baseUrl, ci.key).get('/api/v1/tickets')).status).toBe(200);
    const used = await eventually(() => lastUse(ci.id).then((at) => at ?? undefined), 10_000, 'the recorded use');
    const listed = await keysOf(workspace.id);
    expect(listed[0].lastUsedAt).toBe(used.toISOString());
    expect(listed[1].lastUsedAt).toBeNull();

    const text = await run('key', 'list', '--workspace', workspace.name);
    expect(text.code).toBe(0);
    const [header, ...rows] = text.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID {2,}KEY {2,}NAME {2,}CREATED {2,}LAST USED {2,}REVOKED$/);
    expect(rows[0]).toMatch(new RegExp(`^${ci.id} {2,}${ci.key.slice(0, 20)}_… {2,}ci {2,}\\S+Z {2,}\\S+Z {2,}-$`));
    expect(rows[1]).toMatch(new RegExp(`^${plain.id} {2,}${plain.key.slice(0, 20)}_… {2,}- {2,}\\S+Z {2,}never {2,}-$`));

    // Neither the key, its secret nor its stored hash is ever printed.
    const hashes = await app.orm.em.fork().execute<Array<{ secret_hash: string }>>('select secret_hash from api_keys where workspace_id = ?', [workspace.id]);
    for (const output of [JSON.stringify(listed), text.stdout]) {
      for (const secret of [ci.key, plain.key, parseKey(ci.key)!.secret, parseKey(plain.key)!.secret, ...hashes.map((h) => h.secret_hash)]) {
        expect(output).not.toContain(secret);
      }
    }
  });

  it('records a key\'s use at most once a minute, however many requests it makes', async () => {
    const workspace = await newWorkspace();
    const { id, key } = await newKey(workspace.id);
    const api = client(app.baseUrl, key);
    expect((await api.get('/api/v1/tickets')).status).toBe(200);
    const first = await eventually(() => lastUse(id).then((at) => at ?? undefined), 10_000, 'the recorded use');
    for (let i = 0; i < 5; i++) expect((await api.get('/api/v1/tickets')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lastUse(id)).toEqual(first);
  });

  it('says so for a workspace without keys, and refuses an unknown workspace', async () => {
    const workspace = await newWorkspace();
    expect(await keysOf(workspace.id)).toEqual([]);
    expect((await run('key', 'list', '--workspace', workspace.id)).stdout).toBe(`Workspace ${workspace.id} has no API keys.\n`);
    expectFailure(await run('key', 'list', '--workspace', 'no-such-workspace-name'), /^error: workspace not found: no-such-workspace-name\n$/);
  });
});

describe('key revoke', slow, () => {
  it('takes the public part key list shows (dfk_<16 hex>): the key answers 401 from then on', async () => {
    const workspace = await newWorkspace();
    const { id, key } = await newKey(workspace.id);
    const api = client(app.baseUrl, key);
    expect((await api.get('/api/v1/tickets')).status).toBe(200);

    const publicPart = (await keysOf(workspace.id))[0].prefix;
    const revoked = jsonOutput(await run('key', 'revoke', publicPart, '--json'));
    expect(revoked).toEqual({ id, revoked: true });
    await app.keysCaughtUp();
    expect((await api.get('/api/v1/tickets')).status).toBe(401);
    const [listed] = await keysOf(workspace.id);
    expect(listed.revokedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // Again, by id this time: harmless, the first revocation time stays.
    const again = await run('key', 'revoke', id);
    expect(again.stdout).toBe(`Revoked API key ${id} (${publicPart}_…).\n`);
    expect((await keysOf(workspace.id))[0].revokedAt).toBe(listed.revokedAt);
  });

  it('takes a whole key (a leaked one, say) by its public part, and never prints its secret', async () => {
    const workspace = await newWorkspace();
    const { id, key } = await newKey(workspace.id);
    const result = await run('key', 'revoke', key, '--json');
    expect(jsonOutput(result)).toEqual({ id, revoked: true });
    expect(result.stdout + result.stderr).not.toContain(parseKey(key)!.secret);

    const unknown = `dfk_${'0'.repeat(16)}_${'A'.repeat(43)}`;
    const missing = await run('key', 'revoke', unknown);
    expectFailure(missing, /^error: API key not found: dfk_0000000000000000\n$/);
    expect(missing.stderr).not.toContain('A'.repeat(43));
    expectFailure(await run('key', 'revoke', 'dfk_xyz'), /^error: API key not found: dfk_xyz\n$/);
  });
});

describe('--workspace by name', slow, () => {
  it('finds the one workspace with that name, and refuses a name several share, giving their ids', async () => {
    const unique = await newWorkspace();
    const added = jsonOutput(await run('member', 'add', '--workspace', unique.name, '--user', 'agent-9', '--json'));
    expect(added).toEqual({ workspaceId: unique.id, userId: 'agent-9', role: 'member' });

    // Two workspaces of one name: `workspace create` refuses a name in use, but databases from before it did may hold some.
    const shared = uniqueName('shared');
    const a = await newWorkspace(shared);
    const b = await new WorkspaceService(app.orm.em.fork()).createWorkspace(shared);
    const refused = await run('key', 'create', '--workspace', shared, '--json');
    expectFailure(refused, new RegExp(`^error: 2 workspaces are named "${shared}" \\(${a.id}, ${b.id}\\); give the id of one\\n$`));
    expect(JSON.parse(refused.stdout).error.code).toBe('command_failed');
    expect(await keysOf(a.id)).toEqual([]);
    expect(await keysOf(b.id)).toEqual([]);
    // By id, either is found.
    expect((await newKey(b.id)).id).toMatch(UUID);
  });
});
