import { describe, expect, it } from 'vitest';
import { client, newWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';

// API keys are kept in memory (only their hashes) and dropped the moment their row changes:
// the row's trigger notifies every API process (src/workspaces/key-cache.ts).

const app = useTestApp();
const { ws } = useWorkspace(app);

const sql = (query: string, params: unknown[] = []) => app.orm.em.fork().getConnection().execute(query, params);
const lookupOf = (key: string) => key.split('_')[1];

describe('API keys in memory', () => {
  it('answers a known key from memory: a change the database does not announce goes unseen', async () => {
    const api = client(app.baseUrl, ws.key);
    expect((await api.get('/api/v1/tickets')).status).toBe(200);
    await sql('alter table api_keys disable trigger api_keys_notify');
    try {
      await sql('update api_keys set revoked_at = now() where lookup = ?', [lookupOf(ws.key)]);
      expect((await api.get('/api/v1/tickets')).status).toBe(200);
    } finally {
      await sql('alter table api_keys enable trigger api_keys_notify');
    }
    // Any announced change drops it: the stored revocation now counts.
    await sql('update api_keys set name = name where lookup = ?', [lookupOf(ws.key)]);
    await app.keysCaughtUp();
    expect((await api.get('/api/v1/tickets')).status).toBe(401);
  });

  it('refuses a key revoked in another session as soon as the change is announced, though it was just used', async () => {
    const { ws: other, api } = await newWorkspace(app);
    expect((await api.get('/api/v1/tickets')).status).toBe(200);
    await sql('update api_keys set revoked_at = now() where id = ?', [other.keyId]);
    await app.keysCaughtUp();
    expect((await api.get('/api/v1/tickets')).status).toBe(401);
  });
});
