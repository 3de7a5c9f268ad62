import { describe, expect, it } from 'vitest';
import { aiOwnerWorkflowId } from '../../src/ai/engine.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { getTicket, readMessages } from '../helpers/api.ts';
import { addArticle, customerWrites, PASSWORD_ARTICLE, PRINTER_ARTICLE, setOwner, ticketForAi, turnsAfter, turnsOf } from '../helpers/ai.ts';

// docs/ai.md, "What the owner does", without a model (the default): the articles answer, or a
// person gets the ticket with the reason; on the real engine.

const app = useEngineApp();

async function ownerWorkspace(settings: Record<string, unknown> = {}) {
  const { ws, api } = await engineWorkspace(app, [{ userId: 'lead' }]);
  const password = await addArticle(api, PASSWORD_ARTICLE);
  const printer = await addArticle(api, PRINTER_ARTICLE);
  await setOwner(api, { enabled: true, handoffTo: 'lead', ...settings });
  return { ws, api, articles: { password, printer } };
}

describe('the AI owner without a model', () => {
  it('answers from the best article, sets the ticket pending, and runs as a Temporal workflow of the ticket', async () => {
    const { api, articles } = await ownerWorkspace();
    const ticketId = await ticketForAi(api, 'Hi, I forgot my password and cannot log in. How do I reset it?');
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn).toMatchObject({ action: 'reply', reason: null, citations: [articles.password], model: null, draft: null });
    const messages = await readMessages(api, ticketId);
    const reply = messages.find((m) => m.id === turn.messageId);
    expect(reply).toMatchObject({ direction: 'outbound', body: PASSWORD_ARTICLE.body, senderName: 'AI assistant' });
    expect(turn.answersMessageId).toBe(messages[0].id);
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    const run = await app.engine.client.workflow.getHandle(aiOwnerWorkflowId(ticketId)).describe();
    expect(run.type).toBe('aiOwner');

    // Solved while the AI owns it: resolved by the AI.
    const solved = await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'solved' });
    expect(solved.body.data.resolutionType).toBe('resolved_by_ai');
  });

  it('answers every customer reply while it owns the ticket, up to maxRepliesPerTicket, then hands off', async () => {
    const { api, articles } = await ownerWorkspace({ maxRepliesPerTicket: 2 });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    await turnsAfter(api, ticketId, 1);
    await customerWrites(api, ticketId, 'And my printer does not print anything.');
    const [, second] = await turnsAfter(api, ticketId, 2);
    expect(second).toMatchObject({ action: 'reply', citations: [articles.printer] });
    // The reply reopened the pending ticket; the owner set it pending again.
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    await customerWrites(api, ticketId, 'The printer still does not print.');
    const [, , third] = await turnsAfter(api, ticketId, 3);
    expect(third).toMatchObject({ action: 'handoff', messageId: null, reason: 'The AI already replied 2 times on this ticket (maxRepliesPerTicket).' });
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: 'lead' });
  });

  it('takes a person’s reply (message_added) as an answer: no wake-up and no stop, and the customer’s next message is answered', async () => {
    const { api, articles } = await ownerWorkspace();
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    await turnsAfter(api, ticketId, 1);
    expect((await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'lead', body: 'I have mailed you the link as well.' })).status).toBe(201);
    await customerWrites(api, ticketId, 'And my printer does not print anything.');
    const [, second] = await turnsAfter(api, ticketId, 2);
    expect(second).toMatchObject({ action: 'reply', citations: [articles.printer] });
    const em = app.orm.em.fork();
    const added = await em.execute(`select 1 from outbox_events where ticket_id = ? and type = 'message_added' and payload->'message'->>'senderName' = 'lead'`, [ticketId]);
    expect(added).toHaveLength(1);
    const wakeups = await em.execute('select kind, reason from ai_wakeups where ticket_id = ? order by created_at', [ticketId]);
    expect(wakeups).toEqual([{ kind: 'wake', reason: 'assigned to ai' }, { kind: 'wake', reason: 'the customer wrote' }]);
  });

  it('hands off with the reason when no article is good enough', async () => {
    const { api } = await ownerWorkspace({ minScore: 0.9 });
    const ticketId = await ticketForAi(api, 'My printer is on fire!');
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn.action).toBe('handoff');
    expect(turn.reason).toMatch(/^No article answers this well enough: the best, "Printer troubleshooting", scored 0\.\d+, below minScore 0\.9\.$/);
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: 'lead', status: 'open' });
    expect((await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound')).toEqual([]);
  });

  it('without handoffTo, leaves a handed-off ticket unassigned and escalated', async () => {
    const { api } = await ownerWorkspace({ handoffTo: null });
    const ticketId = await ticketForAi(api, 'Do you ship to Iceland?');
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn).toMatchObject({ action: 'handoff', reason: 'No article matches the customer’s message.' });
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: null, status: 'escalated' });
  });

  it('hands off when the customer asks for a person, in the ticket’s language', async () => {
    const { api } = await ownerWorkspace();
    const ticketId = await ticketForAi(api, 'Passwort vergessen. Ich möchte bitte mit einem Mitarbeiter sprechen.', { language: 'de' });
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn).toMatchObject({ action: 'handoff', reason: 'The customer asked for a person.' });
    expect((await getTicket(api, ticketId)).assignedTo).toBe('lead');
  });

  it('does nothing while off; turned on, it takes up the tickets already waiting for it', async () => {
    const { api } = await engineWorkspace(app, [{ userId: 'lead' }]);
    await addArticle(api, PASSWORD_ARTICLE);
    const waiting = await ticketForAi(api, 'How can I reset my password?');
    const answered = await ticketForAi(api, 'Reset password please');
    expect((await api.post(`/api/v1/tickets/${answered}/replies`, { authorId: 'lead', body: 'Done for you.' })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await turnsOf(api, waiting)).toEqual([]);

    await setOwner(api, { enabled: true });
    const [turn] = await turnsAfter(api, waiting, 1);
    expect(turn.action).toBe('reply');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await turnsOf(api, answered)).toEqual([]);
  });
});

describe('the AI owner with autoSend false', () => {
  it('keeps each reply as a draft that a person sends; a newer draft replaces an unsent one', async () => {
    const { api, articles } = await ownerWorkspace({ autoSend: false });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const [draft] = await turnsAfter(api, ticketId, 1);
    expect(draft).toMatchObject({ action: 'draft', messageId: null, citations: [articles.password], draft: { body: PASSWORD_ARTICLE.body, state: 'waiting', sentAt: null, sentBy: null } });
    expect((await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound')).toEqual([]);
    expect((await getTicket(api, ticketId)).status).toBe('open');

    await customerWrites(api, ticketId, 'Also, my printer does not print.');
    const [first, second] = await turnsAfter(api, ticketId, 2);
    expect(first.draft.state).toBe('superseded');
    expect(second).toMatchObject({ action: 'draft', citations: [articles.printer], draft: { state: 'waiting' } });
    const stale = await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${first.id}/send`, { authorId: 'lead' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('draft_not_waiting');
    expect((await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${second.id}/send`, { authorId: 'stranger' })).status).toBe(403);

    const sent = await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${second.id}/send`, { authorId: 'lead' });
    expect(sent.status).toBe(200);
    expect(sent.body.turn).toMatchObject({ id: second.id, action: 'draft', draft: { state: 'sent', sentBy: 'lead' } });
    const message = (await readMessages(api, ticketId)).find((m) => m.id === sent.body.turn.messageId);
    expect(message).toMatchObject({ direction: 'outbound', body: PRINTER_ARTICLE.body, senderName: 'AI assistant' });
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    expect((await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${second.id}/send`, { authorId: 'lead' })).status).toBe(409);
  });
});
