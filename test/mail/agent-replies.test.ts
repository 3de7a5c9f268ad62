import { describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import { MailDelivery, MailMessage } from '../../src/mail/entity.ts';
import { ReplyService } from '../../src/mail/replies.ts';
import { Message } from '../../src/messages/entity.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { rawMail } from '../helpers/mail-servers.ts';
import { useMailChannel } from '../helpers/mail-channel.ts';
import { eventually } from '../helpers/poll.ts';
import { openTicket, readMessages } from '../helpers/api.ts';

/**
 * POST /api/v1/tickets/:id/replies: an agent's reply is an outbound message, delivered by mail
 * to the customer through the workspace's mailbox (Mailpit here), threaded under the
 * customer's mail, once, whatever the SMTP server does meanwhile.
 */
const app = useEngineApp();
const { dovecot, mailpit, withMailbox: mailboxOf } = useMailChannel(app);

const MEMBERS = [{ userId: 'agent-7' }, { userId: 'lead-1', role: 'admin' as const }];
const withMailbox = (opts: { plusAddressing?: boolean } = {}) => mailboxOf(MEMBERS, opts);

const delivery = (messageId: string) => app.orm.em.fork().findOne(MailDelivery, { message: messageId });
const delivered = (subjectPart: string) => mailpit.messages().then((all) => all.filter((m) => m.Subject.includes(subjectPart)));

describe('the endpoint', () => {
  it('answers 201 with the outbound message, exactly the message fields; saved only without a mailbox', async () => {
    const { api } = await engineWorkspace(app, MEMBERS);
    const ticketId = await openTicket(api, { subject: 'No mailbox here' });
    const res = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'We are on it.', bodyHtml: '<p>We are on it.</p>' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ ticketId, direction: 'outbound', senderEmail: 'agent@deskflow.invalid', senderName: 'agent-7', body: 'We are on it.', bodyHtml: '<p>We are on it.</p>' });
    expect(Object.keys(res.body.data).sort()).toEqual(['body', 'bodyHtml', 'createdAt', 'direction', 'id', 'senderEmail', 'senderName', 'ticketId']);
    expect(await delivery(res.body.data.id)).toBeNull();
    expect((await readMessages(api, ticketId)).map((m) => m.direction)).toEqual(['inbound', 'outbound']);
    // An admin may reply too.
    expect((await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'lead-1', body: 'Second.' })).status).toBe(201);
  });

  it('refuses a non-member (403), a blank author or body (400), an unknown ticket (404), and keeps POST …/messages outbound a 409', async () => {
    const { api } = await engineWorkspace(app, MEMBERS);
    const ticketId = await openTicket(api);
    const post = (body: unknown, id = ticketId) => api.post(`/api/v1/tickets/${id}/replies`, body);
    expect((await post({ authorId: 'stranger', body: 'x' })).status).toBe(403);
    expect((await post({ authorId: 'ai', body: 'x' })).status).toBe(403);
    for (const body of [{ authorId: '  ', body: 'x' }, { authorId: null, body: 'x' }, { body: 'x' }, { authorId: 'agent-7', body: '   ' }, { authorId: 'agent-7' }, { authorId: 'agent-7', body: 'x', bodyHtml: 'h'.repeat(200_001) }, { authorId: 'agent-7', body: 'x', direction: 'outbound' }]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await post({ authorId: 'agent-7', body: 'x'.repeat(100_001) })).status).toBe(400);
    expect((await post({ authorId: 'agent-7', body: 'x' }, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'x', senderEmail: 'a@b.c', direction: 'outbound' })).status).toBe(409);
    expect(await readMessages(api, ticketId)).toHaveLength(1);
  });

  it('takes an Idempotency-Key: the same request again answers the first answer and writes nothing', async () => {
    const { api } = await engineWorkspace(app, MEMBERS);
    const ticketId = await openTicket(api);
    const headers = { 'Idempotency-Key': `reply-${ticketId}` };
    const first = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Once.' }, headers);
    const again = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Once.' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await readMessages(api, ticketId)).toHaveLength(2);
    expect((await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Other.' }, headers)).status).toBe(409);
  });
});

describe('delivery', () => {
  it('sends the reply to the customer, threaded under their mail; the customer answers on the same ticket', async () => {
    const { api, mailbox } = await withMailbox();
    await dovecot.append(rawMail({ messageId: '<casey-1@example.com>', subject: 'Printer on fire', from: 'Casey Customer <casey@example.com>' }), { folder: mailbox.folder });
    const ticket = await eventually(async () => (await api.get('/api/v1/tickets')).body.data[0], 10_000, 'the ticket');
    const ref = ticket.id.replace(/-/g, '').slice(0, 10);
    const res = await api.post(`/api/v1/tickets/${ticket.id}/replies`, { authorId: 'agent-7', body: 'Unplug it, please.', bodyHtml: '<p>Unplug it, <b>please</b>.</p>' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ senderEmail: 'support@acme.example', senderName: 'agent-7' });

    const [mail] = await eventually(async () => {
      const found = await delivered(`[Ticket#${ref}]`);
      return found.length ? found : undefined;
    }, 15_000, 'the reply in Mailpit');
    const stored = await app.orm.em.fork().findOneOrFail(MailMessage, { message: res.body.data.id });
    expect(mail.Subject).toBe(`Re: Printer on fire [Ticket#${ref}]`);
    expect(mail.From).toEqual({ Name: 'Acme Support', Address: 'support@acme.example' });
    expect(mail.To).toEqual([{ Name: 'Casey Customer', Address: 'casey@example.com' }]);
    expect(`<${mail.MessageID}>`).toBe(stored.rfcMessageId);
    const headers = await mailpit.headers(mail.ID);
    expect(headers['In-Reply-To']).toEqual(['<casey-1@example.com>']);
    expect(headers['References']).toEqual(['<casey-1@example.com>']);
    expect(headers['Auto-Submitted']).toBeUndefined();
    const bodies = await mailpit.bodies(mail.ID);
    expect(bodies.Text.trim()).toBe('Unplug it, please.');
    expect(bodies.HTML).toContain('<p>Unplug it, <b>please</b>.</p>');
    expect(await delivery(res.body.data.id)).toMatchObject({ status: 'sent', attempts: 1 });

    // The customer's mail program answers the reply: by its Message-ID, onto the same ticket.
    await dovecot.append(rawMail({ subject: `Re: Printer on fire [Ticket#${ref}]`, inReplyTo: stored.rfcMessageId, references: `<casey-1@example.com> ${stored.rfcMessageId}`, body: 'Done, thanks.' }), { folder: mailbox.folder });
    await eventually(async () => ((await readMessages(api, ticket.id)).length === 3 ? true : undefined), 10_000, 'the answer on the ticket');
    expect((await readMessages(api, ticket.id)).map((m) => [m.direction, m.body])).toEqual([
      ['inbound', 'It started smoking this morning.'],
      ['outbound', 'Unplug it, please.'],
      ['inbound', 'Done, thanks.'],
    ]);
    expect((await api.get('/api/v1/tickets')).body.data).toHaveLength(1);
  });

  it('waits out an SMTP outage and sends the mail once when the server is back', async () => {
    const { api } = await withMailbox();
    const ticketId = await openTicket(api, { subject: 'During the outage' });
    await mailpit.stop();
    try {
      const res = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Sent while SMTP was down.' });
      expect(res.status).toBe(201);
      const waiting = await eventually(async () => {
        const d = await delivery(res.body.data.id);
        return d && d.attempts >= 2 ? d : undefined;
      }, 20_000, 'two failed attempts');
      expect(waiting.status).toBe('pending');
      expect(waiting.lastError).toMatch(/connection refused/);
    } finally {
      await mailpit.start();
    }
    const mails = await eventually(async () => {
      const found = await delivered('During the outage');
      return found.length ? found : undefined;
    }, 60_000, 'the mail after the outage');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await delivered('During the outage')).toHaveLength(mails.length);
    expect(mails).toHaveLength(1);
  }, 90_000);

  it('retries a temporary refusal (4xx) and records a permanent one (5xx) with the server’s answer', async () => {
    const { api } = await withMailbox();
    const ticketId = await openTicket(api, { subject: 'Refused' });
    await mailpit.chaos({ Recipient: { ErrorCode: 451, Probability: 100 } });
    const temporary = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'First try is refused for now.' });
    await eventually(async () => ((await delivery(temporary.body.data.id))!.attempts >= 2 ? true : undefined), 20_000, 'retries');
    expect((await delivery(temporary.body.data.id))!.status).toBe('pending');
    await mailpit.chaos({});
    await eventually(async () => ((await delivery(temporary.body.data.id))!.status === 'sent' ? true : undefined), 90_000, 'the temporary refusal sent at last');

    await mailpit.chaos({ Recipient: { ErrorCode: 550, Probability: 100 } });
    const permanent = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Refused for good.' });
    const failed = await eventually(async () => {
      const d = await delivery(permanent.body.data.id);
      return d?.status === 'failed' ? d : undefined;
    }, 20_000, 'the permanent failure');
    expect(failed.attempts).toBe(1);
    expect(failed.lastError).toMatch(/refused by the SMTP server: .*550/);
    expect(failed.smtpResponse).toMatch(/550/);
    expect((await delivered('Refused')).length).toBe(1);
  }, 150_000);

  it('asks for answers at the ticket’s reply address when the mailbox was added with --plus-addressing', async () => {
    const { api } = await withMailbox({ plusAddressing: true });
    const ticketId = await openTicket(api, { subject: 'Plus addressed' });
    await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'Answer here.' });
    const [mail] = await eventually(async () => {
      const found = await delivered('Plus addressed');
      return found.length ? found : undefined;
    }, 15_000, 'the reply');
    expect(mail.ReplyTo).toEqual([{ Name: 'Acme Support', Address: `support+${ticketId.replace(/-/g, '')}@acme.example` }]);
    expect(mail.From.Address).toBe('support@acme.example');
  });

  it('a bounce of the reply marks its delivery failed, and makes no ticket and no event', async () => {
    const { ws, api, mailbox } = await withMailbox();
    const ticketId = await openTicket(api, { subject: 'Will bounce', customerEmail: 'nobody@example.com' });
    const res = await api.post(`/api/v1/tickets/${ticketId}/replies`, { authorId: 'agent-7', body: 'This will bounce.' });
    await eventually(async () => ((await delivery(res.body.data.id))?.status === 'sent' ? true : undefined), 15_000, 'the reply sent');
    const { rfcMessageId } = await app.orm.em.fork().findOneOrFail(MailMessage, { message: res.body.data.id });
    const events = await app.orm.em.fork().count(OutboxEvent, { workspace: ws.workspaceId });
    const dsn = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.com>',
      'To: support@acme.example',
      'Subject: Undelivered Mail Returned to Sender',
      'Message-ID: <bounce-1@mx.example.com>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Final-Recipient: rfc822; nobody@example.com',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
      '--b',
      'Content-Type: text/rfc822-headers',
      '',
      'From: Acme Support <support@acme.example>',
      `Message-ID: ${rfcMessageId}`,
      'Subject: Re: Will bounce',
      '--b--',
      '',
    ].join('\r\n');
    await dovecot.append(dsn, { folder: mailbox.folder });
    const failed = await eventually(async () => {
      const d = await delivery(res.body.data.id);
      return d?.status === 'failed' ? d : undefined;
    }, 10_000, 'the delivery marked failed');
    expect(failed.lastError).toBe('bounced: smtp; 550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown');
    expect((await api.get('/api/v1/tickets')).body.data).toHaveLength(1);
    expect(await app.orm.em.fork().count(OutboxEvent, { workspace: ws.workspaceId })).toBe(events);
  });

  it('a reply whose workflow could not be started is started by the mail worker', async () => {
    const { ws, api } = await withMailbox();
    const ticketId = await openTicket(api, { subject: 'Started later' });
    // Written as if Temporal had been away at the time: no workflow was started after the commit.
    const message = await new ReplyService(app.orm.em.fork()).reply(ws.workspaceId, ticketId, { authorId: 'agent-7', body: 'Later.' });
    expect((await delivery(message.id))!.startedAt).toBeNull();
    await eventually(async () => ((await delivered('Started later')).length === 1 ? true : undefined), 20_000, 'the mail');
    expect((await delivery(message.id))!.startedAt).not.toBeNull();
    expect(await app.orm.em.fork().count(Message, { ticket: ticketId })).toBe(2);
  });
});
