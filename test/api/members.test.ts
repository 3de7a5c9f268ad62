import { describe, expect, it } from 'vitest';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, createWorkspace, useTestApp } from '../helpers/app.ts';
import { expectError, keysOf } from '../helpers/expect.ts';
import { expectStatus } from '../helpers/api.ts';

// GET /api/members: the current members and admins of the key's workspace, by user id.

const app = useTestApp();

describe('GET /api/members', () => {
  it('lists the workspace’s members and admins, ordered by user id', async () => {
    const ws = await createWorkspace(app.orm, [{ userId: 'zoe' }, { userId: 'amir', role: 'admin' }, { userId: 'Bea' }, { userId: 'ai-reviewer' }]);
    const res = await client(app.baseUrl, ws.key).get('/api/members');
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['members']);
    expect(res.body.members).toEqual([
      { userId: 'Bea', role: 'member' },
      { userId: 'ai-reviewer', role: 'member' },
      { userId: 'amir', role: 'admin' },
      { userId: 'zoe', role: 'member' },
    ]);
  });

  it('follows the admin CLI: a removed member is gone, a new role shows', async () => {
    const ws = await createWorkspace(app.orm, [{ userId: 'a' }, { userId: 'b' }]);
    const workspaces = new WorkspaceService(app.orm.em.fork());
    await workspaces.removeMember(ws.workspaceId, 'a');
    await workspaces.addMember(ws.workspaceId, 'b', 'admin');
    expect((await client(app.baseUrl, ws.key).get('/api/members')).body).toEqual({ members: [{ userId: 'b', role: 'admin' }] });
  });

  it('shows only the key’s workspace, and an empty list when it has none', async () => {
    const mine = await createWorkspace(app.orm);
    await createWorkspace(app.orm, [{ userId: 'someone-else' }]);
    expect((await client(app.baseUrl, mine.key).get('/api/members')).body).toEqual({ members: [] });
  });

  it('needs a key', async () => {
    expectError(await client(app.baseUrl).get('/api/members'), 401, 'unauthorized');
  });
});
