// Debian's Chromium, driven by puppeteer-core, for the tests of the pages Deskflow serves
// (/docs, /console). Every page's requests are recorded, so a test can prove it talked to
// Deskflow only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { expect } from 'vitest';
import { useFixture } from './fixture.ts';

/** Debian's chromium (`npm test` provisions it; `npm run provision` alone); CHROMIUM_PATH names another build. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const UI_TIMEOUT_MS = 30_000;

export type TestBrowser = { browser: Browser; close: () => Promise<void> };

export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: the pages are tested in a real browser. Install Debian's chromium (apt-get install -y chromium; npm run provision does) or set CHROMIUM_PATH.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'deskflow-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A Chromium of the test file's own, started before its tests and closed after them. */
export function useChromium(): TestBrowser {
  return useFixture(launchChromium, (b) => b.close());
}

export type ConsolePage = Page & { requested: string[]; problems: string[] };

/**
 * A new tab (its own sessionStorage) on the console, signed in with `key` through the key
 * screen as a person would, then at `route` (`#/workflows/…`). Script errors and CSP
 * violations are collected in `problems`.
 */
export async function openConsole(browser: Browser, baseUrl: string, key: string, route = '#/workflows'): Promise<ConsolePage> {
  const page = (await browser.newPage()) as ConsolePage;
  page.requested = [];
  page.problems = [];
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  await page.setViewport({ width: 1440, height: 900 });
  page.on('request', (r) => page.requested.push(r.url()));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${(e as Error).message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${baseUrl}/console`);
  await page.waitForSelector('input[name=apiKey]');
  await page.type('input[name=apiKey]', key);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
  await go(page, route);
  return page;
}

// The callbacks below run in the page, where the DOM is; the test code is type-checked without it.
type InPage = {
  location: { hash: string };
  document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }>; activeElement: { getAttribute(n: string): string | null } | null };
};

/** Goes to a route of the console (`#/workflows/…`) as a click on a link would. */
export async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => {
    (globalThis as unknown as InPage).location.hash = h;
  }, hash);
}

export function hashOf(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as InPage).location.hash);
}

/** The value of an input, a select or a textarea. */
export function valueOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (e) => (e as unknown as { value: string }).value);
}

/** Waits until an element matching `selector` holds `text`; polled on a timer, since a tab in the background gets no animation frames. */
export async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    (s, t) => Array.from((globalThis as unknown as InPage).document.querySelectorAll(s)).some((e) => (e.textContent ?? '').includes(t)),
    { polling: 100 },
    selector,
    text,
  );
}

/** Waits until the focused element has this name. */
export async function waitForFocus(page: Page, name: string): Promise<void> {
  await page.waitForFunction((n) => (globalThis as unknown as InPage).document.activeElement?.getAttribute('name') === n, { polling: 50 }, name);
}

/** The text of every element matching `selector`. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
}

/** Drags with the mouse from the centre of one element to the centre of another (a connection on the canvas). */
export async function drag(page: Page, from: string, to: string): Promise<void> {
  const a = await (await page.waitForSelector(from))!.boundingBox();
  const b = await (await page.waitForSelector(to))!.boundingBox();
  if (!a || !b) throw new Error(`cannot drag ${from} → ${to}: not visible`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** The canvas node of id `id` in the workflow editor. */
export const node = (id: string) => `.react-flow__node[data-id="${id}"]`;

/** What went wrong in the page: script errors and CSP refusals (a refused request's own 4xx log line is expected). */
export const problemsOf = (page: ConsolePage) => page.problems.filter((p) => !p.includes('Failed to load resource'));

/** The run status of every node the run view paints, by node id. */
export const runStatuses = (page: ConsolePage) =>
  page.$$eval('[data-node-id]', (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-node-id'), e.getAttribute('data-run-status')])));

/** Adds a node from the palette below the selected node `below` (`entry`: e.g. 'action:add_tag') and waits for the new node `added`. */
export async function addFromPalette(page: Page, below: string, entry: string, added: string): Promise<void> {
  await page.click(node(below));
  await page.click(`[data-palette="${entry}"]`);
  await page.waitForSelector(node(added));
}

/** How a console test ends: the page met no problem (see problemsOf), and is closed. */
export async function closeChecked(page: ConsolePage): Promise<void> {
  expect(problemsOf(page)).toEqual([]);
  await page.close();
}

/**
 * A screenshot for the docs (docs/images/`name`), taken only when CONSOLE_SCREENSHOTS is set:
 * `CONSOLE_SCREENSHOTS=1 npx vitest run test/console`. `prepare` (clicks that frame the
 * picture) runs only then too.
 */
export async function screenshotForDocs(page: Page, name: string, opts: { fullPage?: boolean; prepare?: () => Promise<void> } = {}): Promise<void> {
  if (!process.env.CONSOLE_SCREENSHOTS) return;
  const dir = resolve('docs/images');
  mkdirSync(dir, { recursive: true });
  await opts.prepare?.();
  await page.screenshot({ path: join(dir, name), ...(opts.fullPage ? { fullPage: true } : {}) });
}

/** Selects the node `id` and fits the canvas to the view, then lets it settle: a picture's framing. */
export async function frameNode(page: Page, id: string): Promise<void> {
  await page.click(node(id));
  await page.click('.react-flow__controls-fitview');
  await new Promise((done) => setTimeout(done, 400));
}

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: string[] };

/**
 * What axe-core (the standard accessibility engine) finds wrong on the page as it is now, of
 * the given impacts: each rule broken, with the elements that break it. Its script is handed
 * to the page through the DevTools protocol, which the page's CSP does not govern.
 */
export async function axeViolations(page: Page, impacts: string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const found: AxeViolation[] = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact !== null && impacts.includes(v.impact));
}
