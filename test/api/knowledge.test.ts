import { describe, expect, it } from 'vitest';
import { client, createWorkspace, useTestApp, useWorkspace, type Client } from '../helpers/app.ts';
import { expectError, expectJson, expectOnly, expectValidation, ISO_UTC, UUID } from '../helpers/expect.ts';
import { expectStatus } from '../helpers/api.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';

// docs/ai.md, "Knowledge": /api/knowledge in the key's workspace, and its full-text search.

const app = useTestApp();
const { api } = useWorkspace(app);

const ARTICLE_FIELDS = ['body', 'createdAt', 'id', 'language', 'tags', 'title', 'updatedAt'];
const freshApi = async () => client(app.baseUrl, (await createWorkspace(app.orm)).key);

async function createArticle(c: Client, body: Record<string, unknown>): Promise<any> {
  const res = await c.post('/api/knowledge', body);
  expectStatus(res, 201);
  return res.body.article;
}

async function search(c: Client, query: string): Promise<any[]> {
  const res = await c.get(`/api/knowledge/search?${query}`);
  expectStatus(res, 200);
  expect(Object.keys(res.body)).toEqual(['results']);
  for (const r of res.body.results) expect(Object.keys(r).sort()).toEqual(['article', 'excerpt', 'score']);
  return res.body.results;
}

describe('knowledge articles', () => {
  it('creates, reads, lists (newest first), updates and deletes an article', async () => {
    const own = await freshApi();
    const res = await own.post('/api/knowledge', { title: 'Reset your password', body: 'Open **Settings → Security** and click *Reset password*.', language: 'en', tags: ['account', 'account', ' login '] });
    expectStatus(res, 201);
    expectJson(res);
    const article = expectOnly(res.body, 'article', ARTICLE_FIELDS);
    expect(article).toMatchObject({ title: 'Reset your password', language: 'en', tags: ['account', 'login'] });
    expect(article.id).toMatch(UUID);
    expect(article.createdAt).toMatch(ISO_UTC);
    expect(article.updatedAt).toBe(article.createdAt);

    const second = await createArticle(own, { title: 'Refunds', body: 'We refund within 30 days.' });
    expect(second).toMatchObject({ language: null, tags: [] });

    expect((await own.get(`/api/knowledge/${article.id}`)).body.article).toEqual(article);
    const list = await own.get('/api/knowledge');
    expectStatus(list, 200);
    expect(list.body.articles.map((a: any) => a.id)).toEqual([second.id, article.id]);

    const patched = await own.patch(`/api/knowledge/${article.id}`, { body: 'Click *Forgot password* on the sign-in page.', tags: [] });
    expectStatus(patched, 200);
    expect(patched.body.article).toMatchObject({ title: 'Reset your password', body: 'Click *Forgot password* on the sign-in page.', tags: [], language: 'en' });
    expect(Date.parse(patched.body.article.updatedAt)).toBeGreaterThanOrEqual(Date.parse(article.updatedAt));

    expectStatus(await own.delete(`/api/knowledge/${article.id}`), 204);
    expectError(await own.get(`/api/knowledge/${article.id}`), 404, 'not_found');
    expect((await own.get('/api/knowledge')).body.articles.map((a: any) => a.id)).toEqual([second.id]);
  });

  it('refuses bad input with a 400 naming the field, unknown fields too', async () => {
    expectValidation(await api.post('/api/knowledge', { body: 'x' }), 'title', /required/);
    expectValidation(await api.post('/api/knowledge', { title: 'x'.repeat(301), body: 'x' }), 'title', /at most 300/);
    expectValidation(await api.post('/api/knowledge', { title: '   ', body: 'x' }), 'title', /blank/);
    expectValidation(await api.post('/api/knowledge', { title: 't', body: 'x'.repeat(100_001) }), 'body', /at most 100000/);
    expectValidation(await api.post('/api/knowledge', { title: 't', body: 'x', language: 'English' }), 'language', /two- or three-letter/);
    expectValidation(await api.post('/api/knowledge', { title: 't', body: 'x', tags: ['ok', ''] }), 'tags.1', /empty/);
    expectValidation(await api.post('/api/knowledge', { title: 't', body: 'x', tags: 'billing' }), 'tags', /list/);
    expectValidation(await api.post('/api/knowledge', { title: 't', body: 'x', author: 'me' }), 'author', /Unknown field/);
    const article = await createArticle(api, { title: 'Patchable', body: 'x' });
    expectValidation(await api.patch(`/api/knowledge/${article.id}`, {}), '(body)', /at least one/);
    expectValidation(await api.patch(`/api/knowledge/${article.id}`, { title: null }), 'title', /null/);
  });

  it('keeps each workspace to its own articles (404 for another workspace’s or an unknown id)', async () => {
    const article = await createArticle(api, { title: 'Ours', body: 'Only ours.' });
    const other = await freshApi();
    expectError(await other.get(`/api/knowledge/${article.id}`), 404, 'not_found');
    expectError(await other.patch(`/api/knowledge/${article.id}`, { title: 'Theirs' }), 404, 'not_found');
    expectError(await other.delete(`/api/knowledge/${article.id}`), 404, 'not_found');
    expectError(await api.get(`/api/knowledge/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await api.get('/api/knowledge/not-a-uuid'), 404, 'not_found');
    expect(await search(other, 'q=ours')).toEqual([]);
  });
});

describe('GET /api/knowledge/search', () => {
  it('ranks a match in the title over one in the body, with scores and excerpts', async () => {
    const own = await freshApi();
    const inBody = await createArticle(own, { title: 'Office equipment', body: 'Every printer is leased. Call the vendor when a printer breaks.', language: 'en' });
    const inTitle = await createArticle(own, { title: 'Printer troubleshooting', body: 'Check the cable, then restart the device.', language: 'en' });
    await createArticle(own, { title: 'Refund policy', body: 'We refund purchases within 30 days.', language: 'en' });

    const results = await search(own, 'q=printer');
    expect(results.map((r) => r.article)).toEqual([
      { id: inTitle.id, title: 'Printer troubleshooting' },
      { id: inBody.id, title: 'Office equipment' },
    ]);
    expect(results[0].score).toBeGreaterThan(results[1].score);
    expect(results[1].score).toBeGreaterThan(0);
    expect(results[1].excerpt).toContain('**printer**');
  });

  it('stems words in the article’s language, and searches word for word without one', async () => {
    const own = await freshApi();
    const english = await createArticle(own, { title: 'Printing invoices', body: 'Invoices are printed every Monday.', language: 'en' });
    const german = await createArticle(own, { title: 'Rechnungen drucken', body: 'Rechnungen werden jeden Montag gedruckt.', language: 'de' });
    const plain = await createArticle(own, { title: 'Printed manuals', body: 'Manuals ship printed.' });

    expect((await search(own, 'q=print')).map((r) => r.article.id)).toEqual([english.id]);
    expect((await search(own, 'q=Rechnung')).map((r) => r.article.id)).toEqual([german.id]);
    expect((await search(own, 'q=printed')).map((r) => r.article.id).sort()).toEqual([english.id, plain.id].sort());
    expect((await search(own, 'q=printed&language=en')).map((r) => r.article.id)).toEqual([english.id]);
    expect(await search(own, 'q=printed&language=fr')).toEqual([]);
  });

  it('reads the query as a web search: every word, a phrase, or, -word; at most limit results', async () => {
    const own = await freshApi();
    const a = await createArticle(own, { title: 'Reset password', body: 'Reset it from the sign-in page.', language: 'en' });
    const b = await createArticle(own, { title: 'Change email', body: 'Change it in your profile; a password is asked for.', language: 'en' });
    expect((await search(own, 'q=password')).length).toBe(2);
    expect((await search(own, `q=${encodeURIComponent('reset password')}`)).map((r) => r.article.id)).toEqual([a.id]);
    expect((await search(own, `q=${encodeURIComponent('password -reset')}`)).map((r) => r.article.id)).toEqual([b.id]);
    expect((await search(own, `q=${encodeURIComponent('"sign-in page" or profile')}`)).map((r) => r.article.id).sort()).toEqual([a.id, b.id].sort());
    expect(await search(own, 'q=password&limit=1')).toHaveLength(1);
    expect(await search(own, 'q=the')).toEqual([]);
  });

  it('is not taken for an article id, and validates its query', async () => {
    expectValidation(await api.get('/api/knowledge/search'), 'q', /required/);
    expectValidation(await api.get('/api/knowledge/search?q=%20'), 'q', /blank/);
    expectValidation(await api.get(`/api/knowledge/search?q=${'x'.repeat(501)}`), 'q', /at most 500/);
    expectValidation(await api.get('/api/knowledge/search?q=a&limit=0'), 'limit', /1 to 50/);
    expectValidation(await api.get('/api/knowledge/search?q=a&language=EN'), 'language', /two- or three-letter/);
    expectValidation(await api.get('/api/knowledge/search?q=a&q=b'), 'q', /once/);
  });
});
