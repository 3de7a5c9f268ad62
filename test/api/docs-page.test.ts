// GET /docs in a real headless Chromium: the page lists the documented endpoints and sends a
// request with the API key given under "Authorize", showing the answer; it loads nothing and
// sends nothing anywhere but Deskflow.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createWorkspace, startTestApp, type TestApp } from '../helpers/app.ts';
import { fetchDocument } from '../helpers/openapi.ts';
import { newTicket } from '../helpers/api.ts';

/** Debian's chromium (`npm test` provisions it; `npm run provision` alone); CHROMIUM_PATH names another build. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const UI_TIMEOUT_MS = 60_000;

let app: TestApp;
let browser: Browser;
let page: Page;
let profile: string;
const requested: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: the docs page is tested in a real browser. Install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH.`);
  }
  app = await startTestApp();
  profile = mkdtempSync(join(tmpdir(), 'deskflow-chromium-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  page.on('request', (request) => requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await app?.close();
});

describe('GET /docs in Chromium', () => {
  it('lists every documented endpoint, sends a request with the key given under Authorize and shows the answer', async () => {
    const ws = await createWorkspace(app.orm);
    const subject = `Docs page ticket ${Math.random().toString(36).slice(2, 8)}`;
    expect((await client(app.baseUrl, ws.key).post('/api/v1/tickets', newTicket({ subject }))).status).toBe(201);

    const res = await page.goto(`${app.baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("connect-src 'self'");
    await page.waitForSelector('.opblock-summary-path');

    const doc = await fetchDocument(app.baseUrl);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    const listed = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    expect(listed.sort()).toEqual(documented.sort());

    // Authorize with the workspace's key.
    await page.click('.auth-wrapper .authorize');
    await page.waitForSelector('.modal-ux input');
    await page.type('.modal-ux input', ws.key);
    await page.click('.modal-ux .auth-btn-wrapper .authorize');
    await page.click('.modal-ux .btn-done');

    // Open "List tickets" ("Try it out" is on) and execute it.
    const operation = '#operations-Tickets-listTickets';
    await page.click(`${operation} .opblock-summary-control`);
    await page.click(`${operation} .btn.execute`);
    await page.waitForSelector(`${operation} .live-responses-table tr.response .response-col_status`);
    const status = await page.$eval(`${operation} .live-responses-table tr.response .response-col_status`, (el) => el.textContent?.trim());
    const shown = await page.$eval(`${operation} .live-responses-table tr.response .response-col_description`, (el) => el.textContent ?? '');
    expect(status).toBe('200');
    expect(shown).toContain(subject);
    expect(shown).toContain('"perPage": 20');

    // The page talked only to Deskflow (inline data: images aside).
    const elsewhere = requested.filter((url) => !url.startsWith(`${app.baseUrl}/`) && !url.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${app.baseUrl}/api/v1/tickets?page=1&per_page=20`);
  }, 2 * UI_TIMEOUT_MS);

  it('shows sane example values: no negative totals, this era\'s dates, lowercase UUIDs', async () => {
    await page.goto(`${app.baseUrl}/docs`);
    await page.waitForSelector('.opblock-summary-path');
    const examples: string[] = [];
    for (const operation of ['#operations-Tickets-listTickets', '#operations-Messages-listMessages', '#operations-Executions-listExecutions']) {
      await page.click(`${operation} .opblock-summary-control`);
      await page.waitForSelector(`${operation} .responses-table .microlight`);
      examples.push(...(await page.$$eval(`${operation} .responses-table .microlight`, (blocks) => blocks.map((b) => b.textContent ?? ''))));
    }
    const text = examples.join('\n');
    expect(text).toContain('"total": 0');
    expect(text).not.toMatch(/-\d{4,}/);
    const dates = [...text.matchAll(/"(\d{4})-\d{2}-\d{2}T[^"]*"/g)].map((m) => Number(m[1]));
    expect(dates.length).toBeGreaterThan(3);
    for (const year of dates) expect(year).toBeGreaterThanOrEqual(2000);
    const ids = [...text.matchAll(/"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }, 2 * UI_TIMEOUT_MS);
});
