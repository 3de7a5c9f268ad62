// The AI owner on a ticket's page, in Debian's Chromium against the real API: with an article
// written and the owner on, a ticket assigned to `ai` shows its turns oldest first (what it did,
// why, the articles it cited, the model), an agent sends its waiting draft, a turn written
// later shows through the live feed, and "What would the AI owner do?" answers from the article
// without sending anything. No Temporal worker runs here, so the turns are written as the
// owner's run writes them (rows of ai_turns); the dry run needs no worker.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { axeViolations, closeChecked, type ConsolePage, openConsole, texts, UI_TIMEOUT_MS, useChromium, waitForText } from '../helpers/browser.ts';
import { newWorkspace, useTestApp } from '../helpers/app.ts';
import { expectStatus, openTicket, readMessages } from '../helpers/api.ts';

const app = useTestApp();
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;

async function iAm(page: ConsolePage, userId: string): Promise<void> {
  await page.waitForSelector(`select[name=me] option[value="${userId}"]`);
  await page.select('select[name=me]', userId);
}

/** A turn as the owner's run writes it. */
async function insertTurn(ticketId: string, minutesAgo: number, turn: { action: 'reply' | 'handoff' | 'draft'; reason?: string; citations?: string[]; model?: string; body?: string }): Promise<string> {
  const id = randomUUID();
  await app.orm.em.fork().getConnection().execute(
    `insert into "ai_turns" ("id", "workspace_id", "ticket_id", "answers_message_id", "action", "reason", "citations", "model", "body", "draft_state", "created_at")
     select ?, "workspace_id", "id", ?, ?, ?, ?::text[], ?, ?, ?, now() - make_interval(mins => ?) from "tickets" where "id" = ?`,
    [id, randomUUID(), turn.action, turn.reason ?? null, `{${(turn.citations ?? []).join(',')}}`, turn.model ?? null, turn.body ?? null, turn.action === 'draft' ? 'waiting' : null, minutesAgo, ticketId],
  );
  return id;
}

const turnActions = (page: ConsolePage) => texts(page, '[data-testid=ai-turns] [data-testid=turn-action]');

describe('the AI owner on the ticket page', () => {
  it('shows its turns, sends its draft as the agent, follows the feed and answers the dry run without sending', { timeout: TEST_MS }, async () => {
    const { ws, api } = await newWorkspace(app, [{ userId: 'agent-7' }]);
    const article = await api.post('/api/knowledge', {
      title: 'Printer smoking or on fire',
      body: 'Unplug the printer at once and keep the room clear. We send a technician the same day.',
      language: 'en',
    });
    expectStatus(article, 201);
    const articleId = article.body.article.id as string;
    expectStatus(await api.patch('/api/ai', { enabled: true, handoffTo: 'agent-7' }), 200);
    const ticketId = await openTicket(api, { subject: 'Printer smoking', body: 'My printer is smoking, what do I do?', language: 'en' });
    expectStatus(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'ai' }), 200);

    // What a run would have written: a reply from the article, a hand-off by a model, a draft.
    await insertTurn(ticketId, 30, { action: 'reply', citations: [articleId] });
    await insertTurn(ticketId, 20, { action: 'handoff', reason: 'The customer asked for a person.', model: 'llama3.1' });
    const draftId = await insertTurn(ticketId, 10, { action: 'draft', citations: [articleId], model: 'llama3.1', body: 'Unplug it and keep the room clear.' });

    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/tickets/${ticketId}`);
    await iAm(page, 'agent-7');
    await page.waitForSelector('[data-testid=ai-turns]');
    expect(await turnActions(page)).toEqual(['replied', 'handed off', 'drafted a reply']);
    expect(await texts(page, '[data-testid=ai-turns] [data-testid=turn-model]')).toEqual(['articles only', 'llama3.1', 'llama3.1']);
    expect(await texts(page, '[data-testid=turn-reason]')).toEqual(['The customer asked for a person.']);
    await waitForText(page, '[data-testid=ai-turns] [data-testid=citations] a', 'Printer smoking or on fire');
    const links = await page.$$eval('[data-testid=ai-turns] [data-testid=citations] a', (as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual([`#/knowledge/${articleId}`, `#/knowledge/${articleId}`]);
    expect(await texts(page, '[data-testid=draft-body]')).toEqual(['Unplug it and keep the room clear.']);
    expect(await axeViolations(page)).toEqual([]);

    // The dry run answers from the article; nothing is sent.
    const before = (await readMessages(api, ticketId)).length;
    await page.click('[data-action="ai-dry-run"]');
    await page.waitForSelector('.ai-dry-run-answer');
    expect(await page.$eval('.ai-dry-run-answer', (e) => [e.getAttribute('data-acts'), e.getAttribute('data-action')])).toEqual(['true', 'reply']);
    expect(await texts(page, '[data-testid=dry-run-headline]')).toEqual(['The AI owner would reply now.']);
    await waitForText(page, '[data-testid=dry-run-body]', 'Unplug the printer at once');
    await waitForText(page, '.ai-dry-run-answer [data-testid=citations] a', 'Printer smoking or on fire');
    expect(await axeViolations(page)).toEqual([]);
    expect((await readMessages(api, ticketId)).length).toBe(before);

    // The agent sends the draft, from the keyboard: it goes out as the owner's reply.
    await page.focus(`li[data-turn-id="${draftId}"] [data-action="send-draft"]`);
    await page.keyboard.press('Enter');
    await waitForText(page, `li[data-turn-id="${draftId}"] [data-testid=draft-state]`, 'Sent by agent-7');
    expect(await page.$(`li[data-turn-id="${draftId}"] [data-action="send-draft"]`)).toBeNull();
    await waitForText(page, '[data-testid=messages] .message.outbound', 'Unplug it and keep the room clear.');
    const sent = (await api.get(`/api/v1/tickets/${ticketId}/ai`)).body.turns.find((t: { id: string }) => t.id === draftId);
    expect(sent.draft).toMatchObject({ state: 'sent', sentBy: 'agent-7' });

    // A turn written later shows when the feed says the ticket changed (here: handed to a person).
    await insertTurn(ticketId, 0, { action: 'handoff', reason: 'No article answers this.' });
    expectStatus(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'agent-7' }), 200);
    await waitForText(page, '[data-testid=ai-turns] li:last-child [data-testid=turn-reason]', 'No article answers this.');
    expect(await turnActions(page)).toEqual(['replied', 'handed off', 'drafted a reply', 'handed off']);
    await closeChecked(page);
  });

  it('shows a draft written after the customer\'s message, though the draft changes nothing the feed reports', { timeout: TEST_MS }, async () => {
    const { ws, api } = await newWorkspace(app, [{ userId: 'agent-7' }]);
    const ticketId = await openTicket(api, { subject: 'Router keeps rebooting', body: 'It reboots every hour.' });
    expectStatus(await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'ai' }), 200);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/tickets/${ticketId}`);
    await waitForText(page, '[data-testid=no-ai-turns]', 'The AI owner holds this ticket and has not answered it yet.');
    await page.waitForSelector('[data-feed=live]');

    // The customer writes; the owner's draft is written a moment later, with no event of its own.
    expectStatus(await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Now it reboots every ten minutes.', senderEmail: 'customer@example.com' }), 201);
    await waitForText(page, '[data-testid=messages]', 'Now it reboots every ten minutes.');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await insertTurn(ticketId, 0, { action: 'draft', body: 'Please try a firmware update.' });
    await waitForText(page, '[data-testid=draft-body]', 'Please try a firmware update.');
    expect(await turnActions(page)).toEqual(['drafted a reply']);
    await closeChecked(page);
  });

  it('offers only the dry run on a ticket the owner never handled, and says why it would not act', { timeout: TEST_MS }, async () => {
    const { ws, api } = await newWorkspace(app, [{ userId: 'agent-7' }]);
    const ticketId = await openTicket(api, { subject: 'Invoice question' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/tickets/${ticketId}`);
    await waitForText(page, '[data-testid=no-ai-turns]', 'The AI owner has not handled this ticket.');
    expect(await page.$('[data-testid=ai-turns]')).toBeNull();
    await page.click('[data-action="ai-dry-run"]');
    await waitForText(page, '[data-testid=dry-run-headline]', 'The AI owner would not act now');
    expect(await page.$eval('.ai-dry-run-answer', (e) => e.getAttribute('data-acts'))).toBe('false');
    expect(await axeViolations(page)).toEqual([]);
    await closeChecked(page);
  });
});
