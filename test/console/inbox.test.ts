// The agents' console in Debian's Chromium, against the real API and database: an agent finds a
// ticket in the inbox by a word, replies, notes, tags, assigns and solves it without leaving its
// page, with the keys; a change made through the API shows in the inbox and on the ticket page
// within 2 s, without polling; views can be saved; and axe-core finds no serious or critical
// accessibility violation on either page.
import { describe, expect, it } from 'vitest';
import { axeViolations, closeChecked, type ConsolePage, go, hashOf, openConsole, screenshotForDocs, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForFocus, waitForText } from '../helpers/browser.ts';
import { newWorkspace, useTestApp } from '../helpers/app.ts';
import { expectStatus, getTicket, openTicket, readMessages } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';

// The app as the server runs it, with its event feed; no automation runs in these tests.
const app = useTestApp();
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;
const MEMBERS = [{ userId: 'agent-7' }, { userId: 'lead-1', role: 'admin' as const }];
/** How soon a change made anywhere must show. */
const LIVE_MS = 2000;

/** Says who the agent of this tab is, from the workspace's members. */
async function iAm(page: ConsolePage, userId: string): Promise<void> {
  await page.waitForSelector(`select[name=me] option[value="${userId}"]`);
  await page.select('select[name=me]', userId);
}

/** The ids of the inbox's rows, top to bottom. */
const rowIds = (page: ConsolePage) => page.$$eval('[data-testid=tickets] tbody tr', (rows) => rows.map((r) => r.getAttribute('data-ticket-id')));

async function rowsAre(page: ConsolePage, ids: string[], timeoutMs = 10_000): Promise<void> {
  await eventually(async () => (JSON.stringify(await rowIds(page)) === JSON.stringify(ids) ? true : undefined), timeoutMs, `rows ${ids.join(', ')}`);
}

/** Waits until the page has asked nothing for a second (at most 10 s). */
async function settled(page: ConsolePage): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const before = page.requested.length;
    await new Promise((done) => setTimeout(done, 1000));
    if (page.requested.length === before) return;
  }
  throw new Error(`the page kept asking: ${page.requested.slice(-5).join(', ')}`);
}

/** Clicks somewhere that takes no typing, so the next key is a shortcut. */
const leaveFields = (page: ConsolePage) => page.click('h1');

/** Resolves with the time `selector` took to hold `text`, failing past LIVE_MS. */
async function shownWithin(page: ConsolePage, selector: string, text: string, change: () => Promise<unknown>): Promise<number> {
  await change();
  const start = Date.now();
  await page.waitForFunction(
    (s, t) => Array.from((globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } }).document.querySelectorAll(s)).some((e) => (e.textContent ?? '').includes(t)),
    { polling: 50, timeout: LIVE_MS },
    selector,
    text,
  );
  return Date.now() - start;
}

describe('the inbox and the ticket page', () => {
  it('finds a ticket by a word, then replies, notes, tags, assigns and solves it without leaving its page', async () => {
    const { ws, api } = await newWorkspace(app, MEMBERS);
    const printer = await openTicket(api, { subject: 'The printer on floor 3 is on fire', customerName: 'Dana', body: 'Smoke everywhere.' });
    const invoice = await openTicket(api, { subject: 'Invoice 42 is missing', customerName: 'Robin', customerEmail: 'robin@example.com' });
    await api.patch(`/api/v1/tickets/${invoice}`, { priority: 'high', assignedTo: 'lead-1' });
    await api.post(`/api/v1/tickets/${invoice}/tags`, { tag: 'billing' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/inbox/open');
    await iAm(page, 'agent-7');
    await rowsAre(page, [invoice, printer]);
    await waitForText(page, `tr[data-ticket-id="${invoice}"]`, 'billing');
    await screenshotForDocs(page, 'console-inbox.png');

    // / goes to the search box; the word finds the one ticket.
    await page.click('h1');
    await page.keyboard.press('/');
    await waitForFocus(page, 'q');
    await page.keyboard.type('printer');
    await rowsAre(page, [printer]);

    // j puts the cursor on it, Enter opens it.
    await page.click('h1');
    await page.keyboard.press('j');
    await page.waitForSelector(`tr.cursor[data-ticket-id="${printer}"]`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=composer]');
    expect(await hashOf(page)).toBe(`#/tickets/${printer}`);
    expect(await texts(page, 'h1.user-text')).toEqual(['The printer on floor 3 is on fire']);

    // r: a reply, sent with Ctrl+Enter.
    await leaveFields(page);
    await page.keyboard.press('r');
    await waitForFocus(page, 'composerBody');
    await page.keyboard.type('We are sending someone with an extinguisher.');
    await page.keyboard.down('Control');
    await page.keyboard.press('Enter');
    await page.keyboard.up('Control');
    await waitForText(page, '.messages .message.outbound', 'We are sending someone with an extinguisher.');
    expect(await valueOf(page, 'textarea[name=composerBody]')).toBe('');

    // n: a note, in line after the reply.
    await leaveFields(page);
    await page.keyboard.press('n');
    await waitForFocus(page, 'composerBody');
    expect(await page.$eval('[data-testid=composer]', (f) => f.getAttribute('data-mode'))).toBe('note');
    await page.keyboard.type('Facilities said 10 minutes.');
    await page.click('[data-action=send]');
    await waitForText(page, '.messages .note', 'Facilities said 10 minutes.');
    expect(await texts(page, '.messages .message-body')).toEqual(['Smoke everywhere.', 'We are sending someone with an extinguisher.', 'Facilities said 10 minutes.']);

    // A tag, the assignee, the priority and the status.
    await page.type('input[name=newTag]', 'fire-hazard');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=tags] [data-tag="fire-hazard"]');
    await page.click('[data-action=take]');
    await page.waitForSelector('[data-action=take]', { hidden: true });
    await page.select('select[name=priority]', 'urgent');
    await page.select('select[name=status]', 'solved');
    await page.waitForSelector('.page-head .badge[data-status="solved"]');

    // All of it done, as the API tells, and the page never left.
    await eventually(async () => {
      const t = await getTicket(api, printer);
      return t.status === 'solved' && t.priority === 'urgent' && t.assignedTo === 'agent-7' && t.tags.includes('fire-hazard') ? true : undefined;
    }, 10_000, 'the ticket solved, urgent, assigned and tagged');
    const outbound = (await readMessages(api, printer)).filter((m) => m.direction === 'outbound');
    expect(outbound).toEqual([expect.objectContaining({ senderName: 'agent-7', body: 'We are sending someone with an extinguisher.' })]);
    const notes = await api.get(`/api/v1/tickets/${printer}/notes`);
    expectStatus(notes, 200);
    expect(notes.body.data).toEqual([expect.objectContaining({ authorId: 'agent-7', body: 'Facilities said 10 minutes.' })]);
    expect(await hashOf(page)).toBe(`#/tickets/${printer}`);
    await screenshotForDocs(page, 'console-ticket.png');

    // Removing the tag is one click too.
    await page.click('[data-tag="fire-hazard"] button');
    await page.waitForSelector('[data-tag="fire-hazard"]', { hidden: true });
    expect((await getTicket(api, printer)).tags).toEqual([]);
    await closeChecked(page);
  }, TEST_MS);

  it('shows a change made through the API within 2 s, in the inbox and on the ticket page, without polling', async () => {
    const { ws, api } = await newWorkspace(app, MEMBERS);
    const first = await openTicket(api, { subject: 'First ticket' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/inbox/unassigned');
    await rowsAre(page, [first]);
    await page.waitForSelector('[data-feed=live]');
    await waitForText(page, '[data-testid=count-unassigned]', '1');

    // A new ticket, a changed priority, and a ticket taken by someone: each in the list at once.
    const second = openTicket(api, { subject: 'Second ticket, just in' });
    await shownWithin(page, '[data-testid=tickets]', 'Second ticket, just in', () => second);
    await waitForText(page, '[data-testid=count-unassigned]', '2');
    await shownWithin(page, `tr[data-ticket-id="${first}"] .priority`, 'high', () => api.patch(`/api/v1/tickets/${first}`, { priority: 'high' }));
    await api.patch(`/api/v1/tickets/${first}`, { assignedTo: 'lead-1' });
    await rowsAre(page, [await second], LIVE_MS + 500);

    // Idle: once the last change is read, nothing is asked of the API while nothing changes.
    await settled(page);
    const before = page.requested.length;
    await new Promise((done) => setTimeout(done, 3000));
    expect(page.requested.slice(before).filter((u) => u.includes('/api/'))).toEqual([]);

    // The ticket's page: a customer's message, a colleague's note, a tag and the status.
    await go(page, `#/tickets/${first}`);
    await page.waitForSelector('[data-testid=composer]');
    await shownWithin(page, '.messages .message.inbound', 'Any news?', () => api.post(`/api/v1/tickets/${first}/messages`, { body: 'Any news?', senderEmail: 'customer@example.com', direction: 'inbound' }));
    await shownWithin(page, '.messages .note', 'On it', () => api.post(`/api/v1/tickets/${first}/notes`, { authorId: 'lead-1', body: 'On it' }));
    await shownWithin(page, '[data-testid=tags]', 'vip', () => api.post(`/api/v1/tickets/${first}/tags`, { tag: 'vip' }));
    await shownWithin(page, '.page-head .badge', 'pending', () => api.patch(`/api/v1/tickets/${first}`, { status: 'pending' }));
    expect(await page.$eval('select[name=assignedTo]', (s) => (s as unknown as { value: string }).value)).toBe('lead-1');
    await closeChecked(page);
  }, TEST_MS);

  it('saves a view of a filter in the browser, with its count, and deletes it', async () => {
    const { ws, api } = await newWorkspace(app, MEMBERS);
    const urgent = await openTicket(api, { subject: 'Urgent one' });
    await api.patch(`/api/v1/tickets/${urgent}`, { priority: 'urgent' });
    await openTicket(api, { subject: 'Calm one' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/inbox/open');
    await page.waitForSelector('[data-testid=tickets]');
    await page.select('select[name=priority]', 'urgent');
    await rowsAre(page, [urgent]);
    await page.click('[data-action=save-view]');
    await page.type('dialog input[name=viewName]', 'Urgent and open');
    await page.click('dialog button[type=submit]');
    await eventually(async () => ((await hashOf(page)).startsWith('#/inbox/saved-') ? true : undefined), 10_000, 'the saved view shown');
    const viewId = decodeURIComponent((await hashOf(page)).split('/')[2]);
    await waitForText(page, `[data-testid=count-${viewId}]`, '1');
    await rowsAre(page, [urgent]);

    // Still there after a reload, and in another tab of the same key.
    await page.reload();
    await page.waitForSelector(`a[data-view="${viewId}"]`);
    const other = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/inbox/${viewId}`);
    await rowsAre(other, [urgent]);
    await other.close();
    page.on('dialog', (d) => void d.accept());
    await page.click(`button[aria-label="Delete the view Urgent and open"]`);
    await page.waitForSelector(`a[data-view="${viewId}"]`, { hidden: true });
    await closeChecked(page);
  }, TEST_MS);

  it('has no serious or critical accessibility violations on the inbox and the ticket page', async () => {
    const { ws, api } = await newWorkspace(app, MEMBERS);
    const ticketId = await openTicket(api, { subject: 'Accessible ticket', customerName: 'Robin' });
    await api.post(`/api/v1/tickets/${ticketId}/tags`, { tag: 'billing' });
    await api.post(`/api/v1/tickets/${ticketId}/notes`, { authorId: 'agent-7', body: 'A note.' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/inbox/open');
    await iAm(page, 'agent-7');
    await page.waitForSelector(`tr[data-ticket-id="${ticketId}"]`);
    expect(await axeViolations(page)).toEqual([]);

    await go(page, `#/tickets/${ticketId}`);
    await page.waitForSelector('.messages .note');
    expect(await axeViolations(page)).toEqual([]);
    await page.click('input[name=composerMode][value=note]');
    expect(await axeViolations(page)).toEqual([]);
    await closeChecked(page);
  }, TEST_MS);
});
