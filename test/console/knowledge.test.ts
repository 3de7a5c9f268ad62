// Knowledge and the AI owner in the console, in Debian's Chromium against the real API: an
// operator writes an article, finds it with the search, and sets the owner up with a model
// whose key the page takes and never shows again.
import { describe, expect, it } from 'vitest';
import { AiSettings } from '../../src/ai/entity.ts';
import { closeChecked, go, hashOf, openConsole, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForText } from '../helpers/browser.ts';
import { createWorkspace, client, useTestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/poll.ts';

const app = useTestApp();
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;
const KEY = 'sk-console-7f3a9c1e5b2d4f6a';

describe('the Knowledge and AI owner pages', () => {
  it('writes an article, finds it with the search, and refuses a bad one on its field', { timeout: TEST_MS }, async () => {
    const ws = await createWorkspace(app.orm);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/knowledge');
    await page.waitForSelector('[data-testid="no-articles"]');
    await page.click('[data-action="new-article"]');
    await page.waitForSelector('[data-testid="article-form"]');
    await page.type('input[name=title]', 'Reset your password');
    await page.type('input[name=language]', 'en');
    await page.type('input[name=tags]', 'account, login');
    await page.type('textarea[name=body]', 'Open Settings, choose Security and click Reset password.');
    await page.click('[data-action="save-article"]');
    await eventually(async () => (/^#\/knowledge\/[0-9a-f-]{36}$/.test(await hashOf(page)) ? true : undefined), 10_000, 'the new article’s page');
    const articleId = (await hashOf(page)).split('/')[2];
    const saved = (await client(app.baseUrl, ws.key).get(`/api/knowledge/${articleId}`)).body.article;
    expect(saved).toMatchObject({ title: 'Reset your password', language: 'en', tags: ['account', 'login'] });

    await go(page, '#/knowledge');
    await page.waitForSelector('[data-testid="article-list"]');
    await page.type('input[name=q]', 'resetting passwords');
    await page.click('[data-testid="knowledge-search"] button[type=submit]');
    await waitForText(page, '[data-testid="search-results"]', 'Reset your password');

    await go(page, '#/knowledge/new');
    await page.waitForSelector('[data-testid="article-form"]');
    await page.type('input[name=title]', 'Bad language');
    await page.type('input[name=language]', 'e1');
    await page.type('textarea[name=body]', 'Body.');
    await page.click('[data-action="save-article"]');
    await waitForText(page, '.field.invalid', 'two- or three-letter');
    await closeChecked(page);
  });

  it('sets the owner up with a model; the key is sent once and never shown again', { timeout: TEST_MS }, async () => {
    const ws = await createWorkspace(app.orm, [{ userId: 'lead' }]);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/ai');
    await page.waitForSelector('[data-testid="ai-form"]');
    await page.click('input[name=enabled]');
    await page.type('input[name=handoffTo]', 'lead');
    await page.click('input[name=useModel]:not(:checked)');
    await page.waitForSelector('input[name=baseUrl]');
    await page.type('input[name=baseUrl]', 'https://api.openai.com/v1');
    await page.type('input[name=model]', 'gpt-4o-mini');
    await page.type('input[name=modelApiKey]', KEY);
    await page.click('[data-action="save-ai"]');
    await waitForText(page, '.banner', 'Saved. The AI owner answers tickets assigned to ai.');
    expect(await valueOf(page, 'input[name=modelApiKey]')).toBe('');
    expect(await texts(page, '[data-testid="key-hint"]')).toEqual(['A key is kept (it is never shown). Type a new one to replace it.']);

    const settings = (await client(app.baseUrl, ws.key).get('/api/ai')).body.ai;
    expect(settings).toMatchObject({ enabled: true, handoffTo: 'lead', model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKeySet: true } });
    const row = await app.orm.em.fork().findOneOrFail(AiSettings, { workspace: ws.workspaceId });
    expect(row.modelApiKeySealed).not.toContain(KEY);

    // Read afresh, the page still holds no key.
    await page.reload();
    await page.waitForSelector('input[name=modelApiKey]');
    expect(await valueOf(page, 'input[name=modelApiKey]')).toBe('');
    expect(await page.content()).not.toContain(KEY);

    // A hand-off to someone who is not a member: the server's objection is shown.
    await page.focus('input[name=handoffTo]');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.type('input[name=handoffTo]', 'stranger');
    await page.click('[data-action="save-ai"]');
    await waitForText(page, '.banner.error', 'Not saved: "stranger" is not a current member');
    await closeChecked(page);
  });
});
