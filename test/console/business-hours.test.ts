// Business hours in the console, in Debian's Chromium against the real API, database and
// Temporal: an operator who never saw the JSON makes the desk's calendar on the Calendars page
// (the server's objections on the row they are about), draws "in business hours → wait 16 open
// hours → tag" with the calendar picked by name, saves it, and asks the dry run what happens to
// a ticket on Friday at 16:50; a calendar the workspace no longer has is the server's objection
// on that node; a calendar in use is not deleted, and the page says by whom; a waiting run shows
// its deadline.
import type { HTTPResponse, Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { addFromPalette, closeChecked, frameNode, go, hashOf, node, openConsole, runStatuses, screenshotForDocs, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForText } from '../helpers/browser.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { eventually } from '../helpers/poll.ts';
import { activateWorkflow, createWorkflow, executionAtStep, manualRunOnNewTicket, openTicket } from '../helpers/api.ts';
import { actionNode, conditionNode, triggerNode, waitThenTag, workflowOf } from '../helpers/graphs.ts';

const app = useEngineApp({ feed: true });
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;


type InPage = {
  document: { querySelector(s: string): { value: string; dispatchEvent(e: unknown): boolean } | null };
  HTMLInputElement: { prototype: object };
  Event: new (type: string, init: { bubbles: boolean }) => unknown;
};

/**
 * Sets a date or date-time input as a person picking in its calendar would: the value React
 * reads, then the input event. (Typing into them depends on the browser's locale.)
 */
async function pick(page: Page, selector: string, value: string): Promise<void> {
  await page.waitForSelector(selector);
  await page.evaluate(
    (s, v) => {
      const g = globalThis as unknown as InPage;
      const input = g.document.querySelector(s)!;
      Object.getOwnPropertyDescriptor(g.HTMLInputElement.prototype, 'value')!.set!.call(input, v);
      input.dispatchEvent(new g.Event('input', { bubbles: true }));
    },
    selector,
    value,
  );
}

/** Replaces the text of an input, as selecting it all and typing over it does. */
async function retype(page: Page, selector: string, text: string): Promise<void> {
  const input = await page.waitForSelector(selector);
  await input!.click({ count: 3 });
  await page.keyboard.type(text);
}

const WEEKDAYS_9_TO_5 = ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, from: '09:00', to: '17:00' }));

async function createCalendar(api: Client, name = 'Berlin office', hours = WEEKDAYS_9_TO_5, timeZone = 'Europe/Berlin'): Promise<string> {
  const res = await api.post('/api/calendars', { name, timeZone, hours, holidays: [] });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.calendar.id;
}

describe('business hours in the console', () => {
  it('makes a calendar on the Calendars page, the server\'s objections on the row they name', async () => {
    const { ws, api } = await engineWorkspace(app);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/calendars');
    await page.waitForSelector('[data-testid=no-calendars]');
    await page.click('[data-action=new-calendar]');
    await page.waitForSelector('[data-testid=calendar-form]');

    await page.type('input[name=name]', 'Berlin office');
    await page.select('select[name=timeZone]', 'Europe/Berlin');
    // Weekdays 09:00-17:00 to start with; Wednesday written as a night that crosses midnight.
    expect(await valueOf(page, 'input[name="hours.fri.0.to"]')).toBe('17:00');
    await retype(page, 'input[name="hours.wed.0.from"]', '18:00');
    await retype(page, 'input[name="hours.wed.0.to"]', '10:00');
    await page.click('[data-action=add-holiday]');
    await pick(page, 'input[name="holidays.0.date"]', '2026-12-25');
    await page.type('input[name="holidays.0.name"]', 'Christmas Day');

    const refused = page.waitForResponse((r: HTTPResponse) => r.url().endsWith('/api/calendars') && r.request().method() === 'POST');
    await page.click('[data-action=save-calendar]');
    const answer = await refused;
    expect(answer.status()).toBe(400);
    const details: Array<{ path: string; message: string }> = (await answer.json()).error.details;
    expect(details.map((d) => d.path)).toEqual(['hours.2']);
    await waitForText(page, 'tr[data-day=wed] .field-error', 'crosses midnight');
    expect(await texts(page, 'tr[data-day=wed] .field-error')).toEqual([details[0].message]);
    expect(await texts(page, 'tr[data-day=mon] .field-error')).toEqual([]);
    expect((await api.get('/api/calendars')).body.calendars).toEqual([]);

    // Written as the answer says: two intervals, and the next morning on Thursday.
    await retype(page, 'input[name="hours.wed.0.to"]', '24:00');
    await page.click('[data-action=add-hours-thu]');
    await retype(page, 'input[name="hours.thu.1.from"]', '00:00');
    await retype(page, 'input[name="hours.thu.1.to"]', '06:00');
    await page.click('[data-action=save-calendar]');
    await page.waitForSelector('[data-testid=calendar-list]');
    expect(await hashOf(page)).toBe('#/calendars');
    const [calendar] = (await api.get('/api/calendars')).body.calendars;
    expect(calendar).toMatchObject({
      name: 'Berlin office',
      timeZone: 'Europe/Berlin',
      hours: [
        { day: 'mon', from: '09:00', to: '17:00' },
        { day: 'tue', from: '09:00', to: '17:00' },
        { day: 'wed', from: '18:00', to: '24:00' },
        { day: 'thu', from: '09:00', to: '17:00' },
        { day: 'thu', from: '00:00', to: '06:00' },
        { day: 'fri', from: '09:00', to: '17:00' },
      ],
      holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
    });
    expect(await texts(page, `tr[data-calendar-id="${calendar.id}"] .hours-summary`)).toEqual(['Mon, Tue 09:00–17:00 · Wed 18:00–24:00 · Thu 00:00–06:00, 09:00–17:00 · Fri 09:00–17:00']);

    // Edited: Friday closes at noon.
    await page.click(`tr[data-calendar-id="${calendar.id}"] a.calendar-name`);
    await page.waitForSelector('input[name="hours.fri.0.to"]');
    await retype(page, 'input[name="hours.fri.0.to"]', '12:00');
    await page.click('[data-action=save-calendar]');
    await waitForText(page, '.banner.ok', 'Saved');
    expect((await api.get(`/api/calendars/${calendar.id}`)).body.calendar.hours.at(-1)).toEqual({ day: 'fri', from: '09:00', to: '12:00' });
    await screenshotForDocs(page, 'console-calendar.png', { fullPage: true });
    await closeChecked(page);
  }, TEST_MS);

  it('draws "in business hours → wait 16 open hours → tag", saves it, and dry-runs it on a Friday at 16:50', async () => {
    const { ws, api } = await engineWorkspace(app);
    const calendarId = await createCalendar(api);
    const ticketId = await openTicket(api, { subject: 'Where is my invoice?' });
    const created = await api.post('/api/workflows', { name: 'Follow up after 16 open hours', triggerType: 'ticket_created' });
    const workflowId = created.body.workflow.id;
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('trigger'));

    // Is the desk open now? The field a business-hours condition takes, and the calendar by name.
    await addFromPalette(page, 'trigger', 'condition:in_business_hours', 'condition');
    expect(await valueOf(page, '.node-form select[name="field"]')).toBe('now');
    expect(await texts(page, '.node-form select[name="field"] option')).toEqual(['now (when the condition is evaluated)', 'ticket.createdAt', 'ticket.updatedAt']);
    expect(await texts(page, '.node-form select[name="value"] option')).toEqual(['Choose a calendar…', 'Berlin office (Europe/Berlin)']);
    await page.select('.node-form select[name="value"]', calendarId);
    await waitForText(page, `${node('condition')} .wf-node-summary`, 'now in business hours · Berlin office');

    // Then wait 16 hours of the desk's open time: business time among the delay's choices.
    await addFromPalette(page, 'condition', 'action:delay', 'delay');
    expect(await texts(page, '.node-form fieldset.choice label')).toEqual(['seconds', 'until', 'business time']);
    await page.click('.node-form input[name=choice][value="businessSeconds+calendarId"]');
    await retype(page, '.node-form input[name="businessSeconds"]', '57600');
    await page.select('.node-form select[name="calendarId"]', calendarId);
    await waitForText(page, '.node-form [data-hint="businessSeconds"]', '16 h of open time');
    expect(await page.$('.node-form input[name="seconds"]')).toBeNull();

    // Then tag the ticket.
    await addFromPalette(page, 'delay', 'action:add_tag', 'add-tag');
    await page.type('.node-form input[name="tag"]', 'followed-up');

    const saving = page.waitForResponse((r: HTTPResponse) => r.request().method() === 'PATCH');
    await page.click('[data-action=save]');
    expect((await saving).status()).toBe(200);
    await waitForText(page, '.banner.ok', 'Saved: version 2');
    const saved = (await api.get(`/api/workflows/${workflowId}`)).body.workflow.workflowJson;
    const data = Object.fromEntries(saved.nodes.map((n: { id: string; data: unknown }) => [n.id, n.data]));
    expect(data).toEqual({
      trigger: { triggerType: 'ticket_created' },
      condition: { field: 'now', operator: 'in_business_hours', value: calendarId },
      delay: { actionType: 'delay', businessSeconds: 57600, calendarId },
      'add-tag': { actionType: 'add_tag', tag: 'followed-up' },
    });
    expect(saved.edges.map((e: { source: string; target: string; label?: string }) => `${e.source}-${e.label ?? ''}->${e.target}`)).toEqual([
      'trigger-->condition',
      'condition-true->delay',
      'delay-->add-tag',
    ]);

    // Friday 16:50 in Berlin: open, so it waits 10 minutes on Friday, 8 hours on Monday and the rest of Tuesday.
    await page.click('[data-tab=try]');
    await page.waitForSelector(`select[name=ticketId] option[value="${ticketId}"]`);
    await page.select('select[name=ticketId]', ticketId);
    const dryRun = async (at: string) => {
      await pick(page, 'input[name=at]', at);
      await page.select('select[name=atZone]', 'Europe/Berlin');
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/workflows/dry-run'));
      await page.click('[data-action=dry-run]');
      const response = await answer;
      expect(response.status()).toBe(200);
      return (await response.json()).dryRun;
    };
    const friday = await dryRun('2026-03-06T16:50');
    expect(friday.at).toBe('2026-03-06T15:50:00.000Z');
    await page.waitForSelector('[data-node-id="add-tag"][data-run-status="completed"]');
    expect(await runStatuses(page)).toEqual({ trigger: 'passed', condition: 'passed', delay: 'completed', 'add-tag': 'completed' });
    expect(await texts(page, '[data-node-id="condition"] .outcome')).toEqual(['true']);
    expect(await page.$eval('[data-node-id="delay"] .until', (e) => e.getAttribute('data-until'))).toBe('2026-03-10T15:50:00.000Z');
    await waitForText(page, '[data-node-id="delay"] .until', '16:50');
    await waitForText(page, '[data-testid=dry-run-at]', '16:50');
    await screenshotForDocs(page, 'console-business-hours.png', { prepare: () => frameNode(page, 'delay') });

    // Saturday morning: closed, so the condition is false and nothing waits.
    await dryRun('2026-03-07T10:00');
    await page.waitForSelector('[data-node-id="delay"][data-run-status="not_reached"]');
    expect(await texts(page, '[data-node-id="condition"] .outcome')).toEqual(['false']);
    expect(await page.$('[data-node-id="delay"] .until')).toBeNull();

    expect((await api.get(`/api/workflows/${workflowId}/executions`)).body.executions).toEqual([]);
    await closeChecked(page);
  }, TEST_MS);

  it('counts a schedule\'s idle tickets and a condition\'s age in open hours, each with its calendar picked', async () => {
    const { ws, api } = await engineWorkspace(app);
    const calendarId = await createCalendar(api);
    const created = await api.post('/api/workflows', { name: 'Nudge idle pending tickets', triggerType: 'scheduled' });
    const workflowId = created.body.workflow.id;
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('trigger'));

    // The schedule: every hour, pending tickets untouched for 16 open hours.
    await page.click(node('trigger'));
    await page.type('.node-form input[name="intervalSeconds"]', '3600');
    await waitForText(page, '.node-form [data-hint="intervalSeconds"]', '1 h');
    await page.click('.node-form input[name="ticketFilter-present"]');
    await page.click('.node-form input[name="ticketFilter.status"][value="pending"]');
    await page.type('.node-form input[name="ticketFilter.idleForSeconds"]', '57600');
    await waitForText(page, '.node-form [data-hint="ticketFilter.idleForSeconds"]', '16 h');
    await page.select('.node-form select[name="ticketFilter.calendarId"]', calendarId);
    await waitForText(page, '.node-form [data-hint="ticketFilter.idleForSeconds"]', '16 h of open time');

    // And only those last updated more than 16 open hours ago: an age, in the same calendar.
    await addFromPalette(page, 'trigger', 'condition:older_than', 'condition');
    expect(await texts(page, '.node-form select[name="field"] option')).toEqual(['ticket.createdAt', 'ticket.updatedAt', 'a path in data…']);
    await page.select('.node-form select[name="field"]', 'ticket.updatedAt');
    await retype(page, '.node-form input[name="value.seconds"]', '57600');
    await page.select('.node-form select[name="value.calendarId"]', calendarId);
    await waitForText(page, '.node-form [data-hint="value.seconds"]', '16 h of open time');
    await waitForText(page, `${node('condition')} .wf-node-summary`, 'ticket.updatedAt older than 16 h of open time · Berlin office');
    await addFromPalette(page, 'condition', 'action:add_tag', 'add-tag');
    await page.type('.node-form input[name="tag"]', 'nudge');

    await page.click('[data-action=save]');
    await waitForText(page, '.banner.ok', 'Saved: version 2');
    const saved = (await api.get(`/api/workflows/${workflowId}`)).body.workflow.workflowJson;
    const data = Object.fromEntries(saved.nodes.map((n: { id: string; data: unknown }) => [n.id, n.data]));
    expect(data.trigger).toEqual({ triggerType: 'scheduled', intervalSeconds: 3600, ticketFilter: { status: ['pending'], idleForSeconds: 57600, calendarId } });
    expect(data.condition).toEqual({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 57600, calendarId } });
    await closeChecked(page);
  }, TEST_MS);

  it('shows the server\'s objection to a calendar the workspace no longer has on that node, and how to make one', async () => {
    const { ws, api } = await engineWorkspace(app);
    const gone = await createCalendar(api, 'Old hours');
    const { id: workflowId } = await createWorkflow(
      api,
      workflowOf(
        'Closed-desk tag',
        triggerNode('ticket_created', 'created'),
        [conditionNode('closed', { field: 'ticket.createdAt', operator: 'outside_business_hours', value: gone }), actionNode('tag', { actionType: 'add_tag', tag: 'after-hours' })],
        'created > closed >true tag',
      ),
    );
    // An inactive workflow does not hold its calendar: it can be deleted.
    expect((await api.delete(`/api/calendars/${gone}`)).status).toBe(204);

    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}`);
    await page.waitForSelector(node('closed'));
    await waitForText(page, `${node('closed')} .wf-node-summary`, 'unknown calendar');
    await page.click(node('closed'));
    expect(await valueOf(page, '.node-form select[name="value"]')).toBe(gone);
    // No calendar left: the picker says how to make one.
    await waitForText(page, '.node-form [data-testid=no-calendars]', 'no calendar yet');
    expect(await page.$eval('.node-form [data-testid=no-calendars] a', (a) => a.getAttribute('href'))).toBe('#/calendars/new');

    await page.type('.node-form input[name=label]', 'Arrived while closed');
    const refused = page.waitForResponse((r: HTTPResponse) => r.request().method() === 'PATCH');
    await page.click('[data-action=save]');
    const answer = await refused;
    expect(answer.status()).toBe(400);
    const details: Array<{ path: string; message: string }> = (await answer.json()).error.details;
    expect(details).toEqual([{ path: 'workflowJson.nodes[1].data.value', message: `node "closed": there is no calendar "${gone}" in this workspace` }]);
    await page.waitForSelector('[data-node-id="closed"][data-issue-source="server"]');
    expect(await texts(page, '[data-node-id="closed"] .wf-node-issues li')).toEqual([details[0].message]);
    expect(await texts(page, '.node-form .field-error')).toEqual([details[0].message]);
    expect(await texts(page, '[data-node-id="tag"] .wf-node-issues li')).toEqual([]);

    // A calendar made through the API meanwhile shows up on "reload the list", and is accepted.
    const current = await createCalendar(api, 'New hours');
    await page.click('.node-form .calendar-picker button.link');
    await page.waitForSelector(`.node-form select[name="value"] option[value="${current}"]`);
    await page.select('.node-form select[name="value"]', current);
    await page.waitForSelector('[data-node-id="closed"][data-issue-source="server"]', { hidden: true });
    await page.click('[data-action=save]');
    await waitForText(page, '.banner.ok', 'Saved: version 2');
    expect((await api.get(`/api/workflows/${workflowId}`)).body.workflow.workflowJson.nodes[1].data.value).toBe(current);
    await closeChecked(page);
  }, TEST_MS);

  it('refuses to delete a calendar active workflows use, naming them, and deletes one nobody uses', async () => {
    const { ws, api } = await engineWorkspace(app);
    const used = await createCalendar(api, 'Support desk');
    const spare = await createCalendar(api, 'Spare hours');
    await activateWorkflow(
      api,
      workflowOf('Remind after open hours', triggerNode('ticket_created', 'created'), [actionNode('wait', { actionType: 'wait_for_reply', timeoutSeconds: 57600, calendarId: used })], 'created > wait'),
    );

    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/calendars');
    await page.waitForSelector(`tr[data-calendar-id="${used}"] button.danger`);
    await page.click(`tr[data-calendar-id="${used}"] button.danger`);
    const refused = page.waitForResponse((r: HTTPResponse) => r.request().method() === 'DELETE');
    await page.click('dialog[open] [data-action=delete-calendar]');
    expect((await refused).status()).toBe(409);
    await waitForText(page, 'dialog[open] [data-testid=calendar-in-use]', '"Remind after open hours"');
    await page.click('dialog[open] button:not(.danger)');
    expect((await api.get(`/api/calendars/${used}`)).status).toBe(200);

    await page.click(`tr[data-calendar-id="${spare}"] button.danger`);
    await page.click('dialog[open] [data-action=delete-calendar]');
    await page.waitForSelector(`tr[data-calendar-id="${spare}"]`, { hidden: true });
    expect((await api.get(`/api/calendars/${spare}`)).status).toBe(404);
    expect(await page.$(`tr[data-calendar-id="${used}"]`)).not.toBeNull();
    await closeChecked(page);
  }, TEST_MS);

  it('shows a waiting run\'s deadline on its node and in its steps', async () => {
    const { ws, api } = await engineWorkspace(app);
    const always = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, from: '00:00', to: '24:00' }));
    const calendarId = await createCalendar(api, 'Always open', always, 'UTC');
    const { workflowId, executionId } = await manualRunOnNewTicket(api, waitThenTag('Wait an open hour, then tag', { businessSeconds: 3600, calendarId }));
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting');
    const until = (waiting.steps.find((s) => s.nodeId === 'wait') as { until?: string }).until!;
    expect(Date.parse(until) - Date.parse(waiting.startedAt)).toBeGreaterThanOrEqual(3_600_000);

    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflowId}/runs/${executionId}`);
    await page.waitForSelector('.run-view [data-node-id="wait"][data-run-status="waiting"] .until');
    expect(await page.$eval('.run-view [data-node-id="wait"] .until', (e) => e.getAttribute('data-until'))).toBe(until);
    await waitForText(page, '[data-step="wait"]', 'waiting until');
    expect(await page.$eval('[data-step="wait"] .until', (e) => e.getAttribute('data-until'))).toBe(until);
    await waitForText(page, `${node('wait')} .wf-node-summary`, 'businessSeconds: 1 h of open time, calendar: Always open');

    await page.click('[data-action=cancel]');
    await page.waitForSelector('.run-view h1 .badge[data-status="cancelled"]');
    await eventually(async () => ((await api.get(`/api/workflows/${workflowId}/executions/${executionId}`)).body.execution.status === 'cancelled' ? true : undefined));
    await go(page, '#/calendars');
    await page.waitForSelector(`tr[data-calendar-id="${calendarId}"]`);
    await closeChecked(page);
  }, TEST_MS);
});
