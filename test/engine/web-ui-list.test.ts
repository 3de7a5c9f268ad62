// The Temporal Web UI's list of runs, in a real headless Chromium: without opening a run, an
// operator sees which automation and which ticket each one is for. The list shows each run's
// Workflow ID (pinned after its status, in the Web UI the Temporal CLI ships and in the Compose
// file's) and its type, `runAutomation` for every run; so Deskflow's run ids begin with the
// automation's name and the ticket. Checked on the Web UI of the recommended CLI's dev server
// and, where TEMPORAL_UI_SERVER_PATH names a Web UI server of the Compose file's version (npm test
// provisions one), on that one too, both on the same Temporal server.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import { startDevServer, type DevServer } from '../../temporal/dev-server.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { freePort } from '../helpers/ports.ts';
import { canConnect } from '../../temporal/processes.ts';
import { activeWorkflow, finishedExecutions, openTicket } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';
import { composeUiVersion } from '../../scripts/test-tools.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let temporal: DevServer;
let browser: Browser;
let profile: string;
/** The Web UIs to look at: the CLI's, and the Compose file's version where one is given. */
const webUis: Array<{ name: string; url: string; version?: string }> = [];
let composeUi: ChildProcess | undefined;

/** The Web UI image of docker-compose.yml, e.g. 2.34.0. */

/** A Web UI server (github.com/temporalio/ui-server, `go build ./cmd/server`) on the dev server, as the Compose file runs one. */
async function startComposeUi(binary: string, grpcAddress: string): Promise<string> {
  const port = await freePort();
  mkdirSync(join(profile, 'ui', 'config'), { recursive: true });
  writeFileSync(join(profile, 'ui', 'config', 'development.yaml'), `temporalGrpcAddress: ${grpcAddress}\nport: ${port}\npublicPath:\nenableUi: true\ndefaultNamespace: default\nnotifyOnNewVersion: false\nauth:\n  enabled: false\n`);
  composeUi = spawn(binary, ['--root', join(profile, 'ui'), '--env', 'development', 'start'], { stdio: 'ignore' });
  for (let i = 0; i < 300 && !(await canConnect(port)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  const uiPort = await freePort();
  temporal = await startDevServer({ port: await freePort(), uiPort, cliPath: process.env.TEMPORAL_CLI_PATH });
  webUis.push({ name: 'the Temporal CLI dev server', url: `http://127.0.0.1:${uiPort}` });
  profile = mkdtempSync(join(tmpdir(), 'deskflow-chromium-'));
  if (process.env.TEMPORAL_UI_SERVER_PATH) {
    webUis.push({ name: 'the Compose file', url: await startComposeUi(process.env.TEMPORAL_UI_SERVER_PATH, temporal.address), version: composeUiVersion() });
  }
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}, 120_000);

// Registered before the app's own: runs after the app has closed.
afterAll(async () => {
  composeUi?.kill();
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await temporal?.stop();
});

const app = useEngineApp(() => ({ temporalAddress: temporal.address }));

/*
 * Run in the page (as source text: this project's type-check knows no DOM). linkOf finds the
 * Workflow ID link of a run; whereShown says, for each run, in which column its id is, whether
 * the id begins with the automation and the ticket, whether those are drawn inside what the list
 * shows without scrolling, and the run's type.
 */
function linkOf(id: string) {
  // @ts-expect-error: runs in the page
  return [...document.querySelectorAll('td a')].find((a) => a.textContent.trim() === id);
}

function whereShown(runs: Array<{ id: string; shows: string }>) {
  return runs.map(({ id, shows }) => {
    const link = linkOf(id);
    const row = link.closest('tr');
    const table = row.closest('table');
    const header = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
    const column = header[[...row.children].indexOf(link.closest('td'))];
    // @ts-expect-error: runs in the page
    const walker = document.createTreeWalker(link, 4 /* NodeFilter.SHOW_TEXT */);
    let text = walker.nextNode();
    while (text && !text.textContent.includes(shows)) text = walker.nextNode();
    if (!text) return { id, column, shownAtStart: false, visible: false };
    // @ts-expect-error: runs in the page
    const range = document.createRange();
    const start = text.textContent.indexOf(shows);
    range.setStart(text, start);
    range.setEnd(text, start + shows.length);
    const drawn = range.getBoundingClientRect();
    const scroller = table.parentElement.getBoundingClientRect();
    return {
      id,
      column,
      shownAtStart: link.textContent.trim().startsWith(shows),
      // @ts-expect-error: runs in the page
      visible: drawn.left >= scroller.left && drawn.right <= Math.min(scroller.right, window.innerWidth) && drawn.bottom <= window.innerHeight,
      type: [...row.children].map((td) => td.textContent.trim()).find((t) => t === 'runAutomation'),
    };
  });
}

describe('the Web UI list of runs', () => {
  it('shows for each run, without opening it and without scrolling, the automation and the ticket it ran for', async () => {
    const { api } = await engineWorkspace(app);
    const tag = (tagName: string) => [actionNode('tag', { actionType: 'add_tag', tag: tagName })];
    const automations = {
      'Escalate urgent tickets': await activeWorkflow(api, 'ticket_created', 'start > tag', tag('urgent'), 'Escalate urgent tickets'),
      'Tag printers': await activeWorkflow(api, 'ticket_created', 'start > tag', tag('printer'), 'Tag printers'),
    };
    const tickets = [await openTicket(api, { subject: 'Printer on fire' }), await openTicket(api, { subject: 'URGENT: site down' })];
    for (const workflowId of Object.values(automations)) await finishedExecutions(api, workflowId, 2);

    const runs = await app.orm.em.fork().find(Execution, { workflow: { $in: Object.values(automations) } });
    const nameOf = new Map(Object.entries(automations).map(([name, id]) => [id, name]));
    const expected = runs.map((run) => ({ id: run.temporalWorkflowId, shows: `${nameOf.get(run.workflow)} · ticket ${run.ticketId}` }));
    expect(expected).toHaveLength(4);
    expect(new Set(expected.map((e) => e.shows)).size).toBe(4);
    for (const e of expected) expect(tickets.some((t) => e.shows.endsWith(t))).toBe(true);

    for (const ui of webUis) {
      // A laptop's screen, a first visit (the list's default columns).
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${ui.url}/namespaces/default/workflows`, { waitUntil: 'networkidle0', timeout: 60_000 });
      await page.waitForFunction(`(() => { ${linkOf.toString()}; return ${JSON.stringify(expected.map((e) => e.id))}.every((id) => linkOf(id)); })()`, { timeout: 60_000 });
      const shot = join(tmpdir(), `deskflow-web-ui-runs-${ui.version ?? 'cli'}.png`);
      await page.screenshot({ path: shot });
      const rows = (await page.evaluate(`(() => { ${linkOf.toString()}; return (${whereShown.toString()})(${JSON.stringify(expected)}); })()`)) as Array<Record<string, unknown>>;
      for (const row of rows) {
        expect(row, `${ui.name}: ${row.id} (screenshot: ${shot})`).toMatchObject({ column: 'Workflow ID', shownAtStart: true, visible: true, type: 'runAutomation' });
      }
      // And the id, spaces and all, opens its run.
      await page.evaluate(`(() => { ${linkOf.toString()}; linkOf(${JSON.stringify(expected[0].id)}).click(); })()`);
      await page.waitForFunction(`document.location.pathname.endsWith('/history') && document.body.innerText.includes(${JSON.stringify(expected[0].id)}) && document.body.innerText.includes('Completed')`, { timeout: 60_000 });
      if (ui.version) expect(await page.evaluate('document.body.innerText')).toContain(ui.version);
      await page.close();
    }
  }, 180_000);
});
