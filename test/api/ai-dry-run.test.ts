import { describe, expect, it } from 'vitest';
import { createWorkspace, client, useTestApp } from '../helpers/app.ts';
import { expectError, expectOnly } from '../helpers/expect.ts';
import { expectStatus, getTicket, readMessages } from '../helpers/api.ts';
import { addArticle, PASSWORD_ARTICLE, PRINTER_ARTICLE, setOwner, ticketForAi, turnsOf } from '../helpers/ai.ts';
import { useFixture } from '../helpers/fixture.ts';
import { reply, startModelServer } from '../helpers/model-server.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';

// docs/ai.md, "Dry run": what the owner would do on a ticket now, sending and changing nothing.
// No worker runs here: whatever changes would be the dry run's.

const app = useTestApp({ httpAllow: ['127.0.0.1'] });
const model = useFixture(() => startModelServer(), (s) => s.close());
const DRY_RUN_FIELDS = ['action', 'acts', 'articles', 'body', 'citations', 'model', 'reason', 'why'];

async function workspace() {
  const ws = await createWorkspace(app.orm, [{ userId: 'lead' }]);
  const api = client(app.baseUrl, ws.key);
  const password = await addArticle(api, PASSWORD_ARTICLE);
  await addArticle(api, PRINTER_ARTICLE);
  return { api, password };
}

async function dryRun(api: ReturnType<typeof client>, ticketId: string) {
  const res = await api.post(`/api/v1/tickets/${ticketId}/ai/dry-run`);
  expectStatus(res, 200);
  return expectOnly(res.body, 'dryRun', DRY_RUN_FIELDS);
}

describe('POST /api/v1/tickets/:id/ai/dry-run', () => {
  it('answers what the owner would reply from the articles, and changes nothing', async () => {
    const { api, password } = await workspace();
    await setOwner(api, { enabled: true, handoffTo: 'lead' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const before = await getTicket(api, ticketId);
    const result = await dryRun(api, ticketId);
    expect(result).toMatchObject({ acts: true, why: null, action: 'reply', body: PASSWORD_ARTICLE.body, citations: [password], reason: null, model: null });
    expect(result.articles[0]).toMatchObject({ id: password, title: PASSWORD_ARTICLE.title });
    expect(result.articles[0].score).toBeGreaterThan(0.3);
    expect(await turnsOf(api, ticketId)).toEqual([]);
    expect(await readMessages(api, ticketId)).toHaveLength(1);
    expect(await getTicket(api, ticketId)).toEqual(before);
  });

  it('while off, or on a ticket it does not own, says why it would not act and what it would do', async () => {
    const { api, password } = await workspace();
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    expect(await dryRun(api, ticketId)).toMatchObject({ acts: false, why: expect.stringContaining('The AI owner is off'), action: 'reply', citations: [password] });
    await setOwner(api, { enabled: true });
    expectStatus(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'lead' }), 200);
    expect(await dryRun(api, ticketId)).toMatchObject({ acts: false, why: 'The ticket is not assigned to ai.', action: 'reply' });
    expectStatus(await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'lead', body: 'Done.' }), 201);
    expect(await dryRun(api, ticketId)).toMatchObject({ acts: false, action: null, body: null });
  });

  it('says the hand-off and its reason', async () => {
    const { api } = await workspace();
    await setOwner(api, { enabled: true });
    const ticketId = await ticketForAi(api, 'I want to talk to a human.');
    expect(await dryRun(api, ticketId)).toMatchObject({ acts: true, action: 'handoff', reason: 'The customer asked for a person.' });
  });

  it('asks the model, sending the customer nothing', async () => {
    const { api, password } = await workspace();
    await setOwner(api, { enabled: true, model: { baseUrl: model.baseUrl, model: 'scripted-7b' }, autoSend: false });
    model.script([reply('Use Settings → Security.', [password])]);
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    expect(await dryRun(api, ticketId)).toMatchObject({ acts: true, action: 'draft', body: 'Use Settings → Security.', citations: [password], model: 'scripted-7b' });
    expect(await readMessages(api, ticketId)).toHaveLength(1);
  });

  it('answers 404 for a ticket of another workspace or an unknown one', async () => {
    const { api } = await workspace();
    const { api: other } = await workspace();
    const ticketId = await ticketForAi(api, 'Password?');
    expectError(await other.post(`/api/v1/tickets/${ticketId}/ai/dry-run`), 404, 'not_found');
    expectError(await api.post(`/api/v1/tickets/${UNKNOWN_ID}/ai/dry-run`), 404, 'not_found');
    expectError(await other.get(`/api/v1/tickets/${ticketId}/ai`), 404, 'not_found');
    expectError(await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${UNKNOWN_ID}/send`, { authorId: 'lead' }), 404, 'not_found');
  });
});
