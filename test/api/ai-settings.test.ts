import { describe, expect, it } from 'vitest';
import { AiSettings } from '../../src/ai/entity.ts';
import { createLogger } from '../../src/logger.ts';
import { client, createWorkspace, startTestApp, useTestApp } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation } from '../helpers/expect.ts';
import { expectStatus } from '../helpers/api.ts';

// docs/ai.md, "Settings": GET/PATCH /api/ai.

const logLines: string[] = [];
const app = useTestApp({ logger: createLogger('debug', (line) => logLines.push(line)) });

const SETTINGS_FIELDS = ['autoSend', 'enabled', 'handoffTo', 'instructions', 'maxRepliesPerTicket', 'minScore', 'model', 'senderName'];
const KEY = 'sk-test-4f1c9e0b7d2a4c6e8b1f3a5d7c9e0b2d';

async function freshApi(members: Array<{ userId: string }> = []) {
  const ws = await createWorkspace(app.orm, members);
  return { ws, api: client(app.baseUrl, ws.key) };
}

describe('GET /api/ai', () => {
  it('answers the defaults until a workspace changes them: off, no model, 3 replies, sent at once', async () => {
    const { api } = await freshApi();
    const res = await api.get('/api/ai');
    expectStatus(res, 200);
    expectJson(res);
    expect(expectOnly(res.body, 'ai', SETTINGS_FIELDS)).toEqual({
      enabled: false,
      model: null,
      instructions: '',
      handoffTo: null,
      minScore: 0.3,
      maxRepliesPerTicket: 3,
      autoSend: true,
      senderName: 'AI assistant',
    });
  });
});

describe('PATCH /api/ai', () => {
  it('changes the fields given and keeps the others', async () => {
    const { api } = await freshApi([{ userId: 'lead@example.com' }]);
    const res = await api.patch('/api/ai', { enabled: true, handoffTo: 'lead@example.com', minScore: 0.5, maxRepliesPerTicket: 1, autoSend: false, senderName: 'Ada from Support', instructions: 'Be brief.' });
    expectStatus(res, 200);
    expect(res.body.ai).toEqual({ enabled: true, model: null, instructions: 'Be brief.', handoffTo: 'lead@example.com', minScore: 0.5, maxRepliesPerTicket: 1, autoSend: false, senderName: 'Ada from Support' });
    const again = await api.patch('/api/ai', { enabled: false, handoffTo: null });
    expect(again.body.ai).toMatchObject({ enabled: false, handoffTo: null, minScore: 0.5, senderName: 'Ada from Support' });
    expect((await api.get('/api/ai')).body).toEqual(again.body);
  });

  it('keeps the model key write-only: sealed in the database, never answered, never logged', async () => {
    const { ws, api } = await freshApi();
    logLines.length = 0;
    const res = await api.patch('/api/ai', { model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: KEY } });
    expectStatus(res, 200);
    expect(res.body.ai.model).toEqual({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKeySet: true });
    const read = await api.get('/api/ai');
    expect(read.body.ai.model.apiKeySet).toBe(true);
    // Refused and failing writes do not echo it either.
    const refused = await api.patch('/api/ai', { model: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: KEY }, bogus: KEY });
    expect(refused.status).toBe(400);
    const row = await app.orm.em.fork().findOneOrFail(AiSettings, { workspace: ws.workspaceId });
    expect(row.modelApiKeySealed).toBeTruthy();
    expect(row.modelApiKeySealed).not.toContain(KEY);
    for (const text of [JSON.stringify(res.body), JSON.stringify(read.body), JSON.stringify(refused.body), ...logLines]) expect(text).not.toContain(KEY);
    expect(logLines.length).toBeGreaterThan(0);
  });

  it('drops the key when the model moves to another server without one, or when told to', async () => {
    const { api } = await freshApi();
    await api.patch('/api/ai', { model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: KEY } });
    const sameServer = await api.patch('/api/ai', { model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o' } });
    expect(sameServer.body.ai.model).toEqual({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o', apiKeySet: true });
    const moved = await api.patch('/api/ai', { model: { baseUrl: 'https://example.com/v1', model: 'gpt-4o' } });
    expect(moved.body.ai.model.apiKeySet).toBe(false);
    await api.patch('/api/ai', { model: { baseUrl: 'https://example.com/v1', model: 'gpt-4o', apiKey: KEY } });
    const dropped = await api.patch('/api/ai', { model: { baseUrl: 'https://example.com/v1', model: 'gpt-4o', apiKey: null } });
    expect(dropped.body.ai.model.apiKeySet).toBe(false);
    const none = await api.patch('/api/ai', { model: null });
    expect(none.body.ai.model).toBeNull();
  });

  it('holds the model’s address to the rules of http_request: loopback and private only where DESKFLOW_HTTP_ALLOW lets them', async () => {
    const { api } = await freshApi();
    for (const baseUrl of ['http://127.0.0.1:11434/v1', 'http://localhost:8000/v1', 'http://10.1.2.3/v1', 'http://169.254.169.254/latest', 'http://[::1]:8080/v1']) {
      expectValidation(await api.patch('/api/ai', { model: { baseUrl, model: 'llama3' } }), 'model.baseUrl', /DESKFLOW_HTTP_ALLOW/);
    }
    expectValidation(await api.patch('/api/ai', { model: { baseUrl: 'ftp://example.com', model: 'm' } }), 'model.baseUrl', /http or https/);
    expectValidation(await api.patch('/api/ai', { model: { baseUrl: 'https://user:pw@example.com/v1', model: 'm' } }), 'model.baseUrl', /credentials/);

    const allowing = await startTestApp({ httpAllow: ['127.0.0.1'] });
    try {
      const { key } = await createWorkspace(allowing.orm);
      const local = client(allowing.baseUrl, key);
      const res = await local.patch('/api/ai', { model: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3' } });
      expectStatus(res, 200);
      expect(res.body.ai.model).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3', apiKeySet: false });
      expectValidation(await local.patch('/api/ai', { model: { baseUrl: 'http://10.1.2.3/v1', model: 'llama3' } }), 'model.baseUrl', /DESKFLOW_HTTP_ALLOW/);
    } finally {
      await allowing.close();
    }
  });

  it('hands off only to a current member or admin (403 otherwise), never to ai itself', async () => {
    const { api } = await freshApi([{ userId: 'agent-7' }]);
    expectError(await api.patch('/api/ai', { handoffTo: 'stranger' }), 403, 'forbidden');
    expectValidation(await api.patch('/api/ai', { handoffTo: 'ai' }), 'handoffTo', /person/);
    expectStatus(await api.patch('/api/ai', { handoffTo: 'agent-7' }), 200);
    // A member of another workspace is no member here.
    const { api: other } = await freshApi();
    expectError(await other.patch('/api/ai', { handoffTo: 'agent-7' }), 403, 'forbidden');
    expect((await other.get('/api/ai')).body.ai.handoffTo).toBeNull();
  });

  it('refuses bad input with a 400 naming the field, unknown fields too', async () => {
    const { api } = await freshApi();
    expectValidation(await api.patch('/api/ai', {}), '(body)', /at least one/);
    expectValidation(await api.patch('/api/ai', { enabled: 'yes' }), 'enabled', /true or false/);
    expectValidation(await api.patch('/api/ai', { minScore: 1.5 }), 'minScore', /0 to 1/);
    expectValidation(await api.patch('/api/ai', { maxRepliesPerTicket: 2.5 }), 'maxRepliesPerTicket', /integer/);
    expectValidation(await api.patch('/api/ai', { maxRepliesPerTicket: 51 }), 'maxRepliesPerTicket', /0 to 50/);
    expectValidation(await api.patch('/api/ai', { senderName: ' ' }), 'senderName', /blank/);
    expectValidation(await api.patch('/api/ai', { model: { baseUrl: 'https://example.com/v1' } }), 'model.model', /required/);
    expectValidation(await api.patch('/api/ai', { model: { baseUrl: 'https://example.com/v1', model: 'm', temperature: 1 } }), 'model.temperature', /Unknown field/);
    expectValidation(await api.patch('/api/ai', { model: 'gpt-4o' }), 'model', /object/);
    expectValidation(await api.patch('/api/ai', { autoReply: true }), 'autoReply', /Unknown field/);
    expect((await api.get('/api/ai')).body.ai.enabled).toBe(false);
  });
});
