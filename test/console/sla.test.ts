// Service levels in the console, in Debian's Chromium against the real API and database, with
// the outbox relay keeping the clocks (the timers are Temporal's, tested in test/engine): an
// operator writes "urgent: first reply within 1 hour, warn 15 minutes before" on the SLA page by
// keyboard, the server's objection shown beside the cell it names; the policy is listed in match
// order, reordered and deactivated; the backtest says how it would have fared; a ticket's page
// shows its clocks, and "what breaks next" lists it and opens it.
import type { HTTPResponse, Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, closeChecked, hashOf, screenshotForDocs, openConsole, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForText } from '../helpers/browser.ts';
import { newWorkspace, useTestApp, type Client } from '../helpers/app.ts';
import { expectStatus, openTicket } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';
import { createPolicy, HOUR, slaWhen, targetOf, useClockRelay } from '../helpers/sla.ts';

const app = useTestApp();
const relay = useClockRelay(app);
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;

/** A workspace of this file with an agent, its clocks kept by the relay. */
async function workspace(): Promise<{ key: string; api: Client }> {
  const { ws, api } = await newWorkspace(app, [{ userId: 'agent-1' }]);
  relay.workspaceIds.add(ws.workspaceId);
  return { key: ws.key, api };
}

/** A ticket made urgent (tickets come in medium). */
async function urgentTicket(api: Client, subject = 'The checkout fails'): Promise<string> {
  const id = await openTicket(api, { subject });
  expectStatus(await api.patch(`/api/v1/tickets/${id}`, { priority: 'urgent' }), 200);
  return id;
}

const URGENT_HOUR = { name: 'Urgent within the hour', targets: [{ metric: 'first_reply', priority: 'urgent', seconds: HOUR, warnBeforeSeconds: 900 }] };

type InPage = { document: { activeElement: { getAttribute(n: string): string | null } | null } };

/** Presses Tab until the focused element has the name `name` (at most `max` presses): it is reachable by keyboard. */
async function tabTo(page: Page, name: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    const focused = await page.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.getAttribute('name') ?? null);
    if (focused === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${name} was not reached with Tab`);
}

/** Replaces the text of an input, as selecting it all and typing over it does. */
async function retype(page: Page, selector: string, text: string): Promise<void> {
  const input = await page.waitForSelector(selector);
  await input!.click({ count: 3 });
  await page.keyboard.type(text);
}

const cell = (key: string, part: 'seconds' | 'warnBeforeSeconds') => `input[name="targets.${key}.${part}"]`;
const unit = (key: string, part: 'seconds' | 'warnBeforeSeconds') => `select[name="targets.${key}.${part}.unit"]`;

describe('the SLA page', () => {
  it('writes "urgent: first reply within 1 hour, warn 15 minutes before" on the form, by keyboard, the server\'s objection beside the cell', async () => {
    const { key, api } = await workspace();
    const calendar = await api.post('/api/calendars', { name: 'Office hours', timeZone: 'Europe/Berlin', hours: [{ day: 'mon', from: '09:00', to: '17:00' }], holidays: [] });
    expectStatus(calendar, 201);
    const page = await openConsole(chromium.browser, app.baseUrl, key, '#/sla');
    await page.waitForSelector('[data-testid=no-sla-policies]');
    await page.click('[data-action=new-sla-policy]');
    await page.waitForSelector('[data-testid=sla-policy-form]');
    expect(await axeViolations(page)).toEqual([]);

    // Everything by keyboard: the name, the cell's amount (hours by default), its warning.
    await page.focus('input[name=name]');
    await page.keyboard.type('Urgent within the hour');
    await tabTo(page, 'calendarId');
    await page.select('select[name=calendarId]', calendar.body.calendar.id);
    expect(await texts(page, 'select[name=calendarId] option:checked')).toEqual(['Office hours (Europe/Berlin)']);
    await tabTo(page, 'targets.first_reply.urgent.seconds');
    await page.keyboard.type('1');
    expect(await valueOf(page, unit('first_reply.urgent', 'seconds'))).toBe('hours');
    await tabTo(page, 'targets.first_reply.urgent.warnBeforeSeconds');
    // A warning as long as the target: the server refuses it, beside the warning.
    await page.keyboard.type('1');
    await page.select(unit('first_reply.urgent', 'warnBeforeSeconds'), 'hours');
    // Which tickets, in the workflows' condition editor: an operator that reads a change is refused beside it.
    await page.click('input[name=matchSome]');
    await page.waitForSelector('select[name="match.operator"]');
    await page.select('select[name="match.operator"]', 'changed');
    expect(await axeViolations(page)).toEqual([]);
    const refused = page.waitForResponse((r: HTTPResponse) => r.url().endsWith('/api/sla-policies') && r.request().method() === 'POST');
    await tabTo(page, 'targets.resolution.low.seconds');
    await page.keyboard.press('Enter');
    expect((await refused).status()).toBe(400);
    await waitForText(page, 'td[data-cell="first_reply.urgent"] .field-error', 'warnBeforeSeconds must be less than seconds (3600)');
    await waitForText(page, 'fieldset.match .field.invalid .field-error', 'a policy\'s match reads only the ticket\'s fields');
    expect(await texts(page, '.field-error')).toHaveLength(2);
    await page.click('input[name=matchSome]');

    await retype(page, cell('first_reply.urgent', 'warnBeforeSeconds'), '15');
    await page.select(unit('first_reply.urgent', 'warnBeforeSeconds'), 'minutes');
    await page.focus(cell('first_reply.urgent', 'warnBeforeSeconds'));
    await page.keyboard.press('Enter');
    // Created: the list, with it.
    await page.waitForSelector('[data-testid=sla-policy-list]');
    expect(await hashOf(page)).toBe('#/sla');
    expect(await texts(page, '.policy-name')).toEqual(['Urgent within the hour']);
    await waitForText(page, '[data-testid=sla-policy-list]', 'First reply: urgent 1 h');
    const listed = await api.get('/api/sla-policies');
    expect(listed.body.policies).toHaveLength(1);
    expect(listed.body.policies[0]).toMatchObject({
      name: 'Urgent within the hour',
      isActive: true,
      calendarId: calendar.body.calendar.id,
      pauseOn: ['pending'],
      match: null,
      targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 3600, warnBeforeSeconds: 900 }],
    });
    await closeChecked(page);
  }, TEST_MS);

  it('lists policies in match order, moves one up, deactivates and deletes one', async () => {
    const { key, api } = await workspace();
    const first = await createPolicy(api, { ...URGENT_HOUR, name: 'Everyone' });
    const vip = await createPolicy(api, { ...URGENT_HOUR, name: 'VIP', match: { field: 'ticket.tags', operator: 'contains', value: 'vip' } });
    const page = await openConsole(chromium.browser, app.baseUrl, key, '#/sla');
    await page.waitForSelector('[data-testid=sla-policy-list]');
    expect(await texts(page, '.policy-name')).toEqual(['Everyone', 'VIP']);
    expect(await axeViolations(page)).toEqual([]);

    await page.click(`tr[data-policy-id="${vip.id}"] [data-action=move-up]`);
    await eventually(async () => ((await texts(page, '.policy-name')).join() === 'VIP,Everyone' ? true : undefined), 10_000, 'VIP first');
    expect((await api.get('/api/sla-policies')).body.policies.map((p: { name: string }) => p.name)).toEqual(['VIP', 'Everyone']);

    await page.click(`input[name="active-${first.id}"]`);
    await eventually(async () => ((await api.get(`/api/sla-policies/${first.id}`)).body.policy.isActive === false ? true : undefined), 10_000, 'deactivated');

    await page.click(`tr[data-policy-id="${first.id}"] button.danger`);
    await page.click('[data-action=delete-sla-policy]');
    await eventually(async () => ((await texts(page, '.policy-name')).join() === 'VIP' ? true : undefined), 10_000, 'deleted');
    expect((await api.get(`/api/sla-policies/${first.id}`)).status).toBe(404);
    await closeChecked(page);
  }, TEST_MS);

  it('tries the policy on the form on recorded tickets: attainment per metric and priority, days out of range beside the field', async () => {
    const { key, api } = await workspace();
    const policy = await createPolicy(api, { ...URGENT_HOUR, targets: [...URGENT_HOUR.targets, { metric: 'resolution', priority: 'urgent', seconds: 8 * HOUR }] });
    // Answered at once: a first reply met in time.
    const answered = await urgentTicket(api);
    expectStatus(await api.post(`/api/v1/tickets/${answered}/replies`, { authorId: 'agent-1', body: 'On it.' }), 201);
    await urgentTicket(api);
    const page = await openConsole(chromium.browser, app.baseUrl, key, `#/sla/${policy.id}`);
    await page.waitForSelector('[data-testid=sla-policy-form]');
    expect(await valueOf(page, cell('first_reply.urgent', 'seconds'))).toBe('1');
    expect(await valueOf(page, cell('first_reply.urgent', 'warnBeforeSeconds'))).toBe('15');

    await retype(page, 'input[name=days]', '91');
    await page.click('[data-action=run-sla-backtest]');
    await waitForText(page, '.field-error', 'days must be an integer from 1 to 90');

    await retype(page, 'input[name=days]', '7');
    await page.click('[data-action=run-sla-backtest]');
    await page.waitForSelector('[data-testid=sla-backtest-result]');
    expect(await texts(page, '[data-testid=sla-backtest-tickets]')).toEqual(['2']);
    expect(await texts(page, 'tr[data-target="first_reply.urgent"] td')).toEqual(['First reply', 'urgent', '1', '0', '1', '100%']);
    expect(await texts(page, 'tr[data-target="resolution.urgent"] td')).toEqual(['Resolution', 'urgent', '0', '0', '2', '—']);
    expect(await texts(page, '.field-error')).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshotForDocs(page, 'console-sla.png', { fullPage: true });
    await closeChecked(page);
  }, TEST_MS);
});

describe('clocks in the console', () => {
  it('shows a ticket\'s clocks on its page, and "what breaks next" lists it and opens it', async () => {
    const { key, api } = await workspace();
    await createPolicy(api, URGENT_HOUR);
    const ticketId = await urgentTicket(api, 'Checkout is down');
    await slaWhen(api, ticketId, (sla) => targetOf(sla, 'first_reply')?.status === 'active');

    const page = await openConsole(chromium.browser, app.baseUrl, key, '#/sla/queue');
    await page.waitForSelector('[data-testid=sla-queue]');
    expect(await texts(page, `tr[data-ticket-id="${ticketId}"] td`)).toEqual(expect.arrayContaining(['Checkout is down', 'First reply', 'active', 'urgent']));
    expect(await axeViolations(page)).toEqual([]);
    await page.click(`tr[data-ticket-id="${ticketId}"] a`);
    await page.waitForSelector('[data-testid=sla-clocks] tr[data-metric=first_reply]');
    expect(await hashOf(page)).toBe(`#/tickets/${ticketId}`);
    expect(await texts(page, '[data-testid=sla-clocks] tr[data-metric=first_reply] .badge')).toEqual(['active']);
    expect(await texts(page, '[data-testid=sla-clocks] a')).toEqual(['Urgent within the hour']);
    const [left] = await texts(page, '[data-testid=sla-clocks] [data-testid=time-left]');
    expect(left).toMatch(/^(59|60) min left$|^1 h left$/);
    expect(await axeViolations(page)).toEqual([]);

    // Answered elsewhere: the page shows the clock met, through the feed, with no reload.
    expectStatus(await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-1', body: 'Looking now.' }), 201);
    await waitForText(page, '[data-testid=sla-clocks] tr[data-metric=first_reply] .badge', 'fulfilled');
    await closeChecked(page);
  }, TEST_MS);

  it('turns a clock breached on the page at its due time, with nothing else happening', async () => {
    const { key, api } = await workspace();
    await createPolicy(api, { name: 'Within seconds', targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 4 }] });
    const ticketId = await urgentTicket(api, 'Payments fail');
    await slaWhen(api, ticketId, (sla) => targetOf(sla, 'first_reply')?.status === 'active');
    const page = await openConsole(chromium.browser, app.baseUrl, key, `#/tickets/${ticketId}`);
    await waitForText(page, '[data-testid=sla-clocks] tr[data-metric=first_reply] .badge', 'active');
    await waitForText(page, '[data-testid=sla-clocks] tr[data-metric=first_reply] .badge', 'breached');
    await closeChecked(page);
  }, TEST_MS);

  it('says so when no policy governs a ticket', async () => {
    const { key, api } = await workspace();
    const ticketId = await openTicket(api);
    const page = await openConsole(chromium.browser, app.baseUrl, key, `#/tickets/${ticketId}`);
    await page.waitForSelector('[data-testid=no-sla]');
    await closeChecked(page);
  }, TEST_MS);
});
