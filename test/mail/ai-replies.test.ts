import { describe, expect, it } from 'vitest';
import { MailMessage } from '../../src/mail/entity.ts';
import { useEngineApp } from '../helpers/engine.ts';
import { rawMail } from '../helpers/mail-servers.ts';
import { useMailChannel } from '../helpers/mail-channel.ts';
import { eventually } from '../helpers/poll.ts';
import { getTicket } from '../helpers/api.ts';
import { addArticle, setOwner, turnsAfter } from '../helpers/ai.ts';

/**
 * The AI owner's reply to a ticket that came by mail goes out by mail like an agent's reply:
 * through the workspace's mailbox (Mailpit here), threaded under the customer's mail.
 */
const app = useEngineApp();
const { dovecot, mailpit, withMailbox } = useMailChannel(app);

describe('the AI owner’s reply by mail', () => {
  it('is mailed to the customer, threaded under their mail, as an agent’s reply is', async () => {
    const { api, mailbox } = await withMailbox([{ userId: 'lead' }]);
    const article = await addArticle(api, { title: 'Printer smoking or on fire', body: 'Unplug the printer at once and keep the room clear.', language: 'en' });
    await setOwner(api, { enabled: true, handoffTo: 'lead' });
    await dovecot.append(rawMail({ messageId: '<casey-ai-1@example.com>', subject: 'Printer on fire', from: 'Casey Customer <casey@example.com>' }), { folder: mailbox.folder });
    const ticket = await eventually(async () => (await api.get('/api/v1/tickets')).body.data[0], 10_000, 'the ticket');
    expect((await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'ai' })).status).toBe(200);

    const [turn] = await turnsAfter(api, ticket.id, 1);
    expect(turn).toMatchObject({ action: 'reply', citations: [article] });
    const ref = ticket.id.replace(/-/g, '').slice(0, 10);
    const [mail] = await eventually(async () => {
      const found = (await mailpit.messages()).filter((m) => m.Subject.includes(`[Ticket#${ref}]`));
      return found.length ? found : undefined;
    }, 15_000, 'the reply in Mailpit');
    const stored = await app.orm.em.fork().findOneOrFail(MailMessage, { message: turn.messageId });
    expect(mail.Subject).toBe(`Re: Printer on fire [Ticket#${ref}]`);
    expect(mail.To).toEqual([{ Name: 'Casey Customer', Address: 'casey@example.com' }]);
    expect(`<${mail.MessageID}>`).toBe(stored.rfcMessageId);
    const headers = await mailpit.headers(mail.ID);
    expect(headers['In-Reply-To']).toEqual(['<casey-ai-1@example.com>']);
    expect((await mailpit.bodies(mail.ID)).Text.trim()).toBe('Unplug the printer at once and keep the room clear.');
    expect((await getTicket(api, ticket.id)).status).toBe('pending');
  });

  it('with autoSend false, is mailed once when a person approves the draft in the approvals inbox', async () => {
    const { api, mailbox } = await withMailbox([{ userId: 'lead' }]);
    await addArticle(api, { title: 'Printer smoking or on fire', body: 'Unplug the printer at once.', language: 'en' });
    await setOwner(api, { enabled: true, handoffTo: 'lead', autoSend: false });
    await dovecot.append(rawMail({ messageId: '<casey-ai-2@example.com>', subject: 'Printer smoking', from: 'Casey Customer <casey@example.com>' }), { folder: mailbox.folder });
    const ticket = await eventually(async () => (await api.get('/api/v1/tickets')).body.data[0], 10_000, 'the ticket');
    expect((await api.patch(`/api/v1/tickets/${ticket.id}`, { assignedTo: 'ai' })).status).toBe(200);
    const [turn] = await turnsAfter(api, ticket.id, 1);
    expect(turn).toMatchObject({ action: 'draft', draft: { state: 'waiting' } });
    const decided = await api.post(`/api/approvals/${turn.draft.approvalId}/decision`, { userId: 'lead', decision: 'approve' });
    expect(decided.status).toBe(200);

    const ref = ticket.id.replace(/-/g, '').slice(0, 10);
    const [mail] = await eventually(async () => {
      const found = (await mailpit.messages()).filter((m) => m.Subject.includes(`[Ticket#${ref}]`));
      return found.length ? found : undefined;
    }, 15_000, 'the approved reply in Mailpit');
    expect(mail.Subject).toBe(`Re: Printer smoking [Ticket#${ref}]`);
    expect((await mailpit.headers(mail.ID))['In-Reply-To']).toEqual(['<casey-ai-2@example.com>']);
    expect((await mailpit.bodies(mail.ID)).Text.trim()).toBe('Unplug the printer at once.');
    expect((await getTicket(api, ticket.id)).status).toBe('pending');
    // Once: a second decision is refused, and no second mail follows.
    expect((await api.post(`/api/approvals/${turn.draft.approvalId}/decision`, { userId: 'lead', decision: 'approve' })).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await mailpit.messages()).filter((m) => m.Subject.includes(`[Ticket#${ref}]`))).toHaveLength(1);
  });
});
