// The console (GET /console) in Debian's Chromium, against the real API, database and Temporal:
// an operator draws the tutorial's "Escalate urgent tickets" from an empty workflow with mouse and
// keyboard, saves and activates it, and watches its run; tries a workflow; sees the server's
// objections on the node they are about; meets a colleague's save as a conflict; undoes a
// deletion; and the page talks to Deskflow only and shows what users wrote as text.
import type { HTTPResponse } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { addFromPalette, closeChecked, type ConsolePage, drag, frameNode, go, hashOf, node, openConsole, problemsOf, runStatuses, screenshotForDocs, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForFocus, waitForText } from '../helpers/browser.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { escalateUrgent, waitThenTag } from '../helpers/graphs.ts';
import { eventually } from '../helpers/poll.ts';
import { createWorkflow, finishedExecutions, manualRunOnNewTicket, openTicket } from '../helpers/api.ts';

const TEMPORAL_UI = 'http://temporal-ui.example.test:8080';
const app = useEngineApp({ console: { temporalUiUrl: TEMPORAL_UI, temporalNamespace: 'default' }, feed: true });
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;


/** The tutorial's "Escalate urgent tickets" (docs/automations-tutorial.md), as written there. */
const URGENT = escalateUrgent();

async function createUrgent(api: Client, name = URGENT.name): Promise<string> {
  return (await createWorkflow(api, { ...URGENT, name })).id;
}

/** A fresh workspace with the tutorial's workflow, open in the editor (its nodes drawn). */
async function urgentInEditor() {
  const { ws, api } = await engineWorkspace(app);
  const workflowId = await createUrgent(api);
  const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
  await page.waitForSelector(node('tag'));
  return { api, workflowId, page };
}

/**
 * A graph as data and edges between data, whatever the node ids: two graphs that do the same
 * thing read the same. Node positions (the canvas's) are left out.
 */
function shape(graph: { nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>; edges: Array<{ source: string; target: string; label?: string }> }) {
  const sorted = (data: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : 1))));
  const name = new Map(graph.nodes.map((n) => [n.id, `${n.type}:${sorted(n.data)}`]));
  return {
    nodes: [...name.values()].sort(),
    edges: graph.edges.map((e) => `${name.get(e.source)} -${e.label ?? ''}-> ${name.get(e.target)}`).sort(),
  };
}



/**
 * Waits until the canvas draws exactly `count` edges (of a class, such as those a run followed):
 * React Flow draws a node's edges only once it has measured the node, a frame after the node.
 */
const edgesShown = (page: ConsolePage, count: number, which = '.react-flow__edge') =>
  eventually(async () => ((await page.$$(which)).length === count ? true : undefined), 10_000, `${count} edges drawn (${which})`);

/** Replaces the text of an input, as selecting it all and typing over it does. */
async function retype(page: ConsolePage, selector: string, text: string): Promise<void> {
  const input = await page.waitForSelector(selector);
  await input!.click({ count: 3 });
  await page.keyboard.type(text);
}

/**
 * Clicks the canvas where nothing is drawn: its top-left corner. The pane's centre is where the
 * fitted graph sits (a node or the edge between two), so a click there can select instead.
 */
async function clickEmptyCanvas(page: ConsolePage): Promise<void> {
  const box = await (await page.waitForSelector('.react-flow__pane'))!.boundingBox();
  await page.mouse.click(box!.x + 8, box!.y + 8);
}

async function press(page: ConsolePage, ...keys: string[]) {
  for (const k of keys.slice(0, -1)) await page.keyboard.down(k as never);
  await page.keyboard.press(keys.at(-1) as never);
  for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k as never);
}


describe('the console in Chromium', () => {
  it('draws "Escalate urgent tickets" from an empty workflow, saves and activates it, and paints its run completed', async () => {
    const { ws, api } = await engineWorkspace(app);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key);

    // A new, empty workflow: just its trigger.
    await page.click('button.primary');
    await page.type('dialog input[name=name]', URGENT.name);
    await page.select('dialog select[name=triggerType]', 'ticket_created');
    await page.click('dialog button[type=submit]');
    await page.waitForSelector(node('trigger'));
    const workflowId = decodeURIComponent((await hashOf(page)).split('/')[2]);

    // The condition, added below the selected trigger, its value typed.
    await addFromPalette(page, 'trigger', 'condition:contains', 'condition');
    await page.type('.node-form input[name="value"]', 'urgent');

    // Two actions on its true branch.
    await addFromPalette(page, 'condition', 'action:set_priority', 'set-priority');
    await page.select('.node-form select[name="priority"]', 'urgent');
    await addFromPalette(page, 'condition', 'action:add_tag', 'add-tag');
    await page.type('.node-form input[name="tag"]', 'escalated');

    // The reply after the first, its greeting from the placeholder list.
    await addFromPalette(page, 'set-priority', 'action:send_reply', 'send-reply');
    await page.type('.node-form textarea[name="body"]', 'Hi ');
    await page.select('.node-form select[aria-label="Insert a placeholder into body"]', 'ticket.customerName');
    await waitForFocus(page, 'body');
    await page.keyboard.type(', we are on it.');
    expect(await valueOf(page, '.node-form textarea[name="body"]')).toBe('Hi {{ticket.customerName}}, we are on it.');

    // The second action joins the reply: an edge drawn with the mouse, handle to handle.
    await page.click('button::-p-text(Tidy up)');
    await page.click('.react-flow__controls-fitview');
    await drag(page, `${node('add-tag')} .react-flow__handle.source`, `${node('send-reply')} .react-flow__handle.target`);
    await edgesShown(page, 5);

    // Saved with the keyboard, then activated.
    await page.click(node('send-reply'));
    await press(page, 'Control', 's');
    await waitForText(page, '.banner.ok', 'Saved: version 2');
    await page.click('input[name=isActive]');
    await waitForText(page, '.banner.ok', 'Active');
    await screenshotForDocs(page, 'console-editor.png', {
      prepare: async () => {
        await page.click('.banner.ok button');
        await frameNode(page, 'condition');
      },
    });

    const saved = (await api.get(`/api/workflows/${workflowId}`)).body.workflow;
    expect(saved).toMatchObject({ name: URGENT.name, triggerType: 'ticket_created', isActive: true, version: 2 });
    expect(shape(saved.workflowJson)).toEqual(shape(URGENT.workflowJson));

    // A matching ticket, through the API; its run, painted on the graph.
    const ticketId = await openTicket(api, { subject: 'URGENT: site down', customerName: 'Dana' });
    const [execution] = await finishedExecutions(api, workflowId);
    expect(execution.status).toBe('completed');
    await go(page, `#/workflows/${workflowId}/runs`);
    await page.waitForSelector(`tr[data-execution-id="${execution.id}"] a`);
    await page.click(`tr[data-execution-id="${execution.id}"] a`);
    await page.waitForSelector('.run-view [data-node-id="send-reply"][data-run-status="completed"]');
    expect(await runStatuses(page)).toEqual({
      trigger: 'passed',
      condition: 'passed',
      'set-priority': 'completed',
      'add-tag': 'completed',
      'send-reply': 'completed',
    });
    await edgesShown(page, 5, '.react-flow__edge.followed');
    await waitForText(page, '.message-body', 'Hi Dana, we are on it.');
    expect(await texts(page, '.run-view h1 .badge')).toEqual(['completed']);
    // The condition says what it found; the ticket is named by its subject.
    expect(await texts(page, '[data-step="condition"] .badge')).toEqual(['true']);
    await waitForText(page, `.run-view .muted.small a[data-ticket-id="${ticketId}"]`, 'URGENT: site down');
    // The same run in the Temporal Web UI, by its id.
    expect(execution.runId).toBe(`${URGENT.name} · ticket ${ticketId} · ticket_created · execution ${execution.id}`);
    expect(await page.$eval('[data-testid=temporal-link]', (a) => a.getAttribute('href'))).toBe(
      `${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(execution.runId)}`,
    );
    await screenshotForDocs(page, 'console-run.png');

    // The ticket's page lists the run, which opens on the graph.
    await go(page, `#/tickets/${ticketId}`);
    await page.waitForSelector(`tr[data-execution-id="${execution.id}"]`);
    await waitForText(page, '.messages', 'Hi Dana, we are on it.');

    // A ticket the condition turns down: its run took no action, and the list says so.
    await openTicket(api, { subject: 'A calm question' });
    const idle = (await finishedExecutions(api, workflowId, 2)).find((e: { id: string }) => e.id !== execution.id);
    await go(page, `#/workflows/${workflowId}/runs`);
    await waitForText(page, `tr[data-execution-id="${idle.id}"] .badge`, 'no action');
    await waitForText(page, `tr[data-execution-id="${idle.id}"] a[data-ticket-id]`, 'A calm question');
    expect(await texts(page, `tr[data-execution-id="${execution.id}"] .badge`)).toEqual(['completed']);
    await waitForText(page, '[data-testid=run-count]', '2 runs, 1 of which took no action');
    await closeChecked(page);
  }, TEST_MS);

  it('lights the path of a dry run on the canvas, with each condition\'s result', async () => {
    const { ws, api } = await engineWorkspace(app);
    const workflowId = await createUrgent(api);
    const urgent = await openTicket(api, { subject: 'Urgent: invoices lost' });
    const calm = await openTicket(api, { subject: 'A question about invoices' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('reply'));
    await page.click('[data-tab=try]');

    const dryRun = async (ticketId: string) => {
      await page.waitForSelector(`select[name=ticketId] option[value="${ticketId}"]`);
      await page.select('select[name=ticketId]', ticketId);
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/workflows/dry-run'));
      await page.click('[data-action=dry-run]');
      expect((await answer).status()).toBe(200);
      await page.waitForSelector('[data-testid=dry-run-result]');
      await page.waitForSelector('[data-node-id="created"][data-run-status="passed"]');
    };

    // No ticket chosen: a ticket_created run always has one, so the page says so and asks nothing.
    await page.waitForSelector('[data-action=dry-run]');
    await page.click('[data-action=dry-run]');
    await waitForText(page, '[data-testid=dry-run-form] .banner.error', 'No ticket chosen: a ticket created run always has one');
    expect(page.requested.filter((u) => u.endsWith('/api/workflows/dry-run'))).toEqual([]);

    await dryRun(urgent);
    expect(await runStatuses(page)).toEqual({ created: 'passed', 'is-urgent': 'passed', raise: 'completed', tag: 'completed', reply: 'completed' });
    expect(await texts(page, '[data-node-id="is-urgent"] .outcome')).toEqual(['true']);
    // Nothing was done, so the actions say what they would do.
    expect(await texts(page, '[data-node-id="raise"] .badge')).toEqual(['would set priority']);
    expect(await texts(page, '[data-testid=steps] [data-step="reply"] .badge')).toEqual(['would send reply']);
    await edgesShown(page, 5, '.react-flow__edge.followed');
    await waitForText(page, '[data-testid=dry-run-result]', '"priority": "urgent"');

    await dryRun(calm);
    await page.waitForSelector('[data-node-id="raise"][data-run-status="not_reached"]');
    expect(await runStatuses(page)).toEqual({ created: 'passed', 'is-urgent': 'passed', raise: 'not_reached', tag: 'not_reached', reply: 'not_reached' });
    expect(await texts(page, '[data-node-id="is-urgent"] .outcome')).toEqual(['false']);
    await edgesShown(page, 1, '.react-flow__edge.followed');
    // The backtest over the last days' events: both tickets' creations, one of which acts.
    await page.click('input[name=tryMode]:not(:checked)');
    await page.click('[data-action=backtest]');
    await waitForText(page, '[data-testid=backtest-result]', '1 of 2 events would have run actions');
    await waitForText(page, '[data-testid=backtest-result]', 'set_priority × 1');
    await page.waitForSelector('[data-node-id="reply"][data-run-status="completed"]');

    // Nothing ran for real.
    expect((await api.get(`/api/workflows/${workflowId}/executions`)).body.executions).toEqual([]);

    // A search asks the API and picks the ticket it finds first.
    await page.click('input[name=tryMode]:not(:checked)');
    await page.type('input[name=ticketSearch]', 'lost');
    await eventually(async () => ((await valueOf(page, 'select[name=ticketId]')) === urgent ? true : undefined), 10_000, 'the ticket found picked');
    await retype(page, 'input[name=ticketSearch]', 'question');
    await eventually(async () => ((await valueOf(page, 'select[name=ticketId]')) === calm ? true : undefined), 10_000, 'the other ticket found picked');
    await closeChecked(page);
  }, TEST_MS);

  it('adds from the palette after a bare trigger with nothing selected, and otherwise asks to select a node', async () => {
    const { ws, api } = await engineWorkspace(app);
    const workflowId = (await createWorkflow(api, { name: 'Bare', triggerType: 'manual' })).id;
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('trigger'));
    await page.click('[data-palette="action:add_tag"]');
    await page.waitForSelector(node('add-tag'));
    await edgesShown(page, 1);
    // Nothing selected again, and the trigger has a path: the palette asks first, adds nothing.
    await clickEmptyCanvas(page);
    await page.waitForSelector('.react-flow__node.selected', { hidden: true });
    await page.click('[data-palette="action:set_priority"]');
    await waitForText(page, '[data-testid=palette-hint]', 'Select the node the new one follows');
    expect(await page.$(node('set-priority'))).toBeNull();
    await page.click(node('add-tag'));
    await page.waitForSelector('[data-testid=palette-hint] .banner', { hidden: true });
    await closeChecked(page);
  }, TEST_MS);

  it('shows the server\'s message on the node and the field a refused save names', async () => {
    const { api, workflowId, page } = await urgentInEditor();
    await page.click(node('tag'));
    const input = await page.waitForSelector('.node-form input[name="tag"]');
    await input!.click({ count: 3 });
    await page.keyboard.type('   ');

    const refused = page.waitForResponse((r: HTTPResponse) => r.request().method() === 'PATCH');
    await page.click('[data-action=save]');
    const answer = await refused;
    expect(answer.status()).toBe(400);
    const details: Array<{ path: string; message: string }> = (await answer.json()).error.details;
    const issue = details.find((d) => d.path === 'workflowJson.nodes[3].data.tag');
    expect(issue?.message).toBe('node "tag": tag must not be blank');

    await page.waitForSelector('[data-node-id="tag"][data-issue-source="server"]');
    expect(await texts(page, '[data-node-id="tag"] .wf-node-issues li')).toEqual([issue!.message]);
    expect(await texts(page, '.node-form .field-error')).toEqual([issue!.message]);
    expect(await texts(page, '[data-node-id="raise"] .wf-node-issues li')).toEqual([]);
    expect((await api.get(`/api/workflows/${workflowId}`)).body.workflow.version).toBe(1);
    await page.close();
  }, TEST_MS);

  it('makes a save over a colleague\'s save a visible conflict, and reloads theirs on request', async () => {
    const { ws, api } = await engineWorkspace(app);
    const workflowId = await createUrgent(api);
    const key = ws.key;
    const mine = await openConsole(chromium.browser, app.baseUrl, key, `#/workflows/${workflowId}`);
    const theirs = await openConsole(chromium.browser, app.baseUrl, key, `#/workflows/${workflowId}`);
    await mine.waitForSelector(node('reply'));
    await theirs.waitForSelector(node('reply'));

    /** The other tab types `text` into the input `name` (selected whole with `clicks` clicks) and saves. */
    const theySave = async (name: string, text: string, clicks: number) => {
      await theirs.bringToFront();
      await theirs.click(`input[name=${name}]`, { count: clicks });
      await theirs.keyboard.type(text);
      await theirs.click('[data-action=save]');
      await waitForText(theirs, '.banner.ok', 'Saved');
    };
    /** This tab adds " Mine." to the reply (not saved yet). */
    const iChangeTheReply = async () => {
      await mine.bringToFront();
      await mine.click(node('reply'));
      await mine.type('.node-form textarea[name="body"]', ' Mine.');
    };

    // The other tab renames it and saves.
    await theySave('workflowName', 'Escalate urgent tickets (theirs)', 3);

    // This tab, which read it before, changes the reply and saves: a conflict, nothing overwritten.
    await iChangeTheReply();
    const refused = mine.waitForResponse((r: HTTPResponse) => r.request().method() === 'PATCH');
    await mine.click('[data-action=save]');
    expect((await refused).status()).toBe(412);
    await mine.waitForSelector('dialog [data-testid=conflict]');
    expect(await texts(mine, 'dialog [data-testid=conflict]')).toEqual([expect.stringContaining('saved by someone else')]);
    expect((await api.get(`/api/workflows/${workflowId}`)).body.workflow.name).toBe('Escalate urgent tickets (theirs)');

    // Reload: their version, my change dropped.
    await mine.click('dialog [data-action=reload]');
    await eventually(async () => ((await valueOf(mine, 'input[name=workflowName]')) === 'Escalate urgent tickets (theirs)' ? true : undefined), 10_000, 'their name, reloaded');
    expect(await mine.$('[data-testid=unsaved]')).toBeNull();

    // Once more, and this time overwrite theirs with mine.
    await theySave('workflowDescription', 'Theirs again', 1);
    await iChangeTheReply();
    await mine.click('[data-action=save]');
    await mine.waitForSelector('dialog [data-testid=conflict]');
    await mine.click('dialog [data-action=overwrite]');
    await waitForText(mine, '.banner.ok', 'Saved: version 2');
    const after = (await api.get(`/api/workflows/${workflowId}`)).body.workflow;
    expect(after.workflowJson.nodes.find((n: { id: string }) => n.id === 'reply').data.body).toContain(' Mine.');
    expect(after.description).toBe('Theirs again');
    expect(problemsOf(mine)).toEqual([]);
    await mine.close();
    await theirs.close();
  }, TEST_MS);

  it('restores a deleted node, with its edges, on undo', async () => {
    const { api, workflowId, page } = await urgentInEditor();
    await page.click(node('tag'));
    await page.keyboard.press('Delete');
    await page.waitForSelector(node('tag'), { hidden: true });
    await edgesShown(page, 3);
    await page.waitForSelector('[data-testid=unsaved]');

    await press(page, 'Control', 'z');
    await page.waitForSelector(node('tag'));
    await edgesShown(page, 5);
    await page.waitForSelector('[data-testid=unsaved]', { hidden: true });
    // The trigger cannot be deleted: a graph has exactly one.
    await page.click(node('created'));
    await page.keyboard.press('Delete');
    expect(await page.$(node('created'))).not.toBeNull();

    // Copy and paste: a new node, with a fresh id.
    await page.click(node('tag'));
    await press(page, 'Control', 'c');
    await press(page, 'Control', 'v');
    await page.waitForSelector(node('tag-2'));
    await page.waitForSelector('[data-testid=unsaved]');

    // Leaving with unsaved changes asks first; staying keeps them.
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.message());
      void (asked.length === 1 ? d.dismiss() : d.accept());
    });
    await go(page, '#/tickets');
    await eventually(async () => (asked.length === 1 ? true : undefined), 10_000, 'the question before leaving');
    expect(asked[0]).toContain('unsaved changes');
    expect(await hashOf(page)).toBe(`#/workflows/${workflowId}`);
    expect(await page.$(node('tag-2'))).not.toBeNull();
    // The tickets' old address opens the inbox.
    await go(page, '#/tickets');
    await page.waitForSelector('.inbox');
    await page.close();
  }, TEST_MS);

  it('follows a run live while it waits, cancels it, and filters the runs by status', async () => {
    const { ws, api } = await engineWorkspace(app);
    const { workflowId, executionId } = await manualRunOnNewTicket(api, waitThenTag('Wait, then tag', { seconds: 600 }));
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}/runs/${executionId}`);

    // Followed live: the delay comes to wait, the node after it is not reached yet.
    await page.waitForSelector('[data-node-id="wait"][data-run-status="waiting"]', { timeout: 20_000 });
    expect(await runStatuses(page)).toEqual({ start: 'passed', wait: 'waiting', tag: 'pending' });

    await page.click('[data-action=cancel]');
    await page.waitForSelector('.run-view h1 .badge[data-status="cancelled"]');
    await page.waitForSelector('[data-node-id="tag"][data-run-status="not_reached"]');
    expect(await page.$('[data-action=cancel]')).toBeNull();
    expect((await api.get(`/api/workflows/${workflowId}/executions/${executionId}`)).body.execution.status).toBe('cancelled');

    // The list of runs, by status.
    await go(page, `#/workflows/${workflowId}/runs`);
    await page.waitForSelector(`tr[data-execution-id="${executionId}"][data-status="cancelled"]`);
    await page.select('select[name=status]', 'completed');
    await page.waitForSelector(`tr[data-execution-id="${executionId}"]`, { hidden: true });
    await page.select('select[name=status]', 'cancelled');
    await page.waitForSelector(`tr[data-execution-id="${executionId}"]`);
    await closeChecked(page);
  }, TEST_MS);

  it('works with nothing but Deskflow to talk to, and shows a name with <script> as text', async () => {
    const { ws, api } = await engineWorkspace(app);
    const hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const workflowId = await createUrgent(api, hostile);
    const ticketId = await openTicket(api, { subject: `<b>bold</b> ${hostile}`, body: `<script>window.__pwned = 3</script>` });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key);
    // Anything not addressed to Deskflow is cut off, as it would be without internet.
    await page.setRequestInterception(true);
    page.on('request', (r) => (r.url().startsWith(`${app.baseUrl}/`) || r.url().startsWith('data:') ? r.continue() : r.abort()));
    await page.reload();
    await page.waitForSelector(`tr[data-workflow-id="${workflowId}"] .workflow-name`);
    expect(await texts(page, `tr[data-workflow-id="${workflowId}"] .workflow-name`)).toEqual([hostile]);

    await go(page, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('reply'));
    expect(await valueOf(page, 'input[name=workflowName]')).toBe(hostile);
    await go(page, `#/tickets/${ticketId}`);
    await waitForText(page, '.messages', 'window.__pwned = 3');
    expect(await texts(page, 'h1.user-text')).toEqual([`<b>bold</b> ${hostile}`]);

    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$('img[src="x"], main script, main b')).toEqual([]);

    // Deleted from the list, after saying yes to the question naming it.
    await go(page, '#/workflows');
    await page.waitForSelector(`tr[data-workflow-id="${workflowId}"] button.danger`);
    await page.click(`tr[data-workflow-id="${workflowId}"] button.danger`);
    await page.waitForSelector('dialog[open] strong.user-text');
    expect(await texts(page, 'dialog[open] strong.user-text')).toEqual([hostile]);
    await page.click('dialog[open] button.danger');
    await page.waitForSelector(`tr[data-workflow-id="${workflowId}"]`, { hidden: true });
    expect((await api.get(`/api/workflows/${workflowId}`)).status).toBe(404);

    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(page.requested.filter((u) => !u.startsWith(`${app.baseUrl}/`) && !u.startsWith('data:'))).toEqual([]);
    await closeChecked(page);
  }, TEST_MS);
});
