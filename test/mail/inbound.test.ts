import { afterEach, describe, expect, it } from 'vitest';
import { client, createWorkspace, newWorkspace, useTestApp } from '../helpers/app.ts';
import { rawMail } from '../helpers/mail-servers.ts';
import { connectMailbox, startMailWorker, testSecrets, useMailServers } from '../helpers/mailbox.ts';
import { OutboxEvent } from '../../src/events/entity.ts';
import { Mailbox, MailReceipt } from '../../src/mail/entity.ts';
import { MailboxService } from '../../src/mail/mailboxes.ts';
import type { MailWorker } from '../../src/mail/mail-worker.ts';
import { eventually } from '../helpers/poll.ts';

/**
 * Customer mail into a real Dovecot, read by the mail worker: every mail becomes exactly one
 * ticket or message, or (own mail, bounces, automatic mail) nothing at all, whatever restarts,
 * outages, second workers, renumbered folders or duplicate deliveries happen.
 */
const app = useTestApp();
const servers = useMailServers();
const { dovecot } = servers;
const workers: MailWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

async function setUp(opts: { maxMailBytes?: number; pollMs?: number } = {}) {
  const { ws, api } = await newWorkspace(app);
  const mailbox = await connectMailbox(app.orm, servers, ws.workspaceId);
  const scope = new Set([ws.workspaceId]);
  const start = () => {
    const worker = startMailWorker(app.orm, scope, opts);
    workers.push(worker);
    return worker;
  };
  const append = (mail: Parameters<typeof rawMail>[0] = {}, flags?: string[]) => dovecot.append(rawMail(mail), { folder: mailbox.folder, flags });
  const tickets = async () => (await api.get('/api/v1/tickets?per_page=100')).body.data as any[];
  const messages = async (ticketId: string) => (await api.get(`/api/v1/tickets/${ticketId}/messages`)).body.data as any[];
  const receipts = () => app.orm.em.fork().find(MailReceipt, { mailbox: mailbox.id }, { orderBy: { uid: 'asc' } });
  const events = () => app.orm.em.fork().find(OutboxEvent, { workspace: ws.workspaceId }, { orderBy: { createdAt: 'asc' } });
  /** Waits until `n` mails have receipts. */
  const taken = (n: number, timeoutMs = 10_000) => eventually(async () => ((await receipts()).length >= n ? receipts() : undefined), timeoutMs, `${n} mail(s) taken in`);
  return { ws, api, mailbox, start, append, tickets, messages, receipts, events, taken };
}

describe('a new mail', () => {
  it('becomes a ticket within 10 s, from the customer, with its text and sanitised HTML, and is flagged \\Seen after', async () => {
    // No poll within the test: IMAP IDLE is what announces the mail.
    const t = await setUp({ pollMs: 600_000 });
    t.start();
    await eventually(async () => ((await app.orm.em.fork().findOneOrFail(Mailbox, { id: t.mailbox.id })).state === 'watching' ? true : undefined), 10_000, 'the watcher');
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // idle, as a mailbox mostly is
    const appended = Date.now();
    const uid = await t.append({
      from: '"Casey Customer" <casey@example.com>',
      subject: 'Printer on fire',
      body: 'It started smoking this morning.',
      html: '<p>It started <b>smoking</b> this morning.<script>alert(1)</script><img src="https://tracker.example/p.gif"></p>',
    });
    const [ticket] = await eventually(async () => ((await t.tickets()).length ? t.tickets() : undefined), 10_000, 'a ticket');
    expect(Date.now() - appended).toBeLessThan(10_000);
    expect(ticket).toMatchObject({ subject: 'Printer on fire', customerEmail: 'casey@example.com', customerName: 'Casey Customer', source: 'email', status: 'open' });
    const [message] = await t.messages(ticket.id);
    expect(message).toMatchObject({ direction: 'inbound', senderEmail: 'casey@example.com', senderName: 'Casey Customer', body: 'It started smoking this morning.' });
    expect(message.bodyHtml).toBe('<p>It started <b>smoking</b> this morning.</p>');
    expect(Object.keys(message).sort()).toEqual(['body', 'bodyHtml', 'createdAt', 'direction', 'id', 'senderEmail', 'senderName', 'ticketId']);
    expect((await t.events()).map((e) => e.type)).toEqual(['ticket_created']);
    const flags = await eventually(async () => {
      const f = await dovecot.flags(t.mailbox.folder);
      return f.get(uid)?.includes('\\Seen') ? f : undefined;
    }, 5_000, 'the \\Seen flag');
    expect(flags.get(uid)).toContain('\\Seen');
    const [receipt] = await t.receipts();
    expect(receipt).toMatchObject({ outcome: 'ticket', ticketId: ticket.id, messageId: message.id });
    expect(receipt.seenAt).not.toBeNull();
  });

  it('uses (no subject), Reply-To as the customer, and cuts a body over the limit with a note', async () => {
    const t = await setUp();
    t.start();
    await t.append({ subject: '', from: 'Web Form <form@site.example>', headers: { 'Reply-To': 'Dana <dana@example.com>' }, body: 'x'.repeat(150_000) });
    const [ticket] = await eventually(async () => ((await t.tickets()).length ? t.tickets() : undefined), 10_000, 'a ticket');
    expect(ticket).toMatchObject({ subject: '(no subject)', customerEmail: 'dana@example.com', customerName: 'Dana' });
    const [message] = await t.messages(ticket.id);
    expect([...message.body]).toHaveLength(100_000);
    expect(message.body).toMatch(/\[Cut by Deskflow: this text has 150000 characters; only the first part is kept here\. The whole mail stays in the mailbox \(Message-ID <.+>\)\.\]$/);
  });
});

describe('mail that must not become a ticket', () => {
  it('own mail, auto-replies, list mail and bounces create no ticket and no event', async () => {
    const t = await setUp();
    t.start();
    await t.append({ from: 'Acme Support <support@acme.example>', subject: 'Our own' });
    await t.append({ subject: 'Out of office', headers: { 'Auto-Submitted': 'auto-replied' } });
    await t.append({ subject: 'Away', headers: { 'X-Autoreply': 'yes' } });
    await t.append({ subject: 'Newsletter', headers: { 'List-Id': '<news.example.com>', Precedence: 'list' } });
    await t.append({ subject: 'Bulk', headers: { Precedence: 'bulk' } });
    await t.append({ from: 'MAILER-DAEMON@mx.example.com', subject: 'Undelivered Mail Returned to Sender' });
    const receipts = await t.taken(6);
    expect(receipts.map((r) => r.outcome)).toEqual(['own', 'automatic', 'automatic', 'automatic', 'automatic', 'bounce']);
    expect(await t.tickets()).toEqual([]);
    expect(await t.events()).toEqual([]);
    // They are left unread for whoever looks at the mailbox.
    expect([...(await dovecot.flags(t.mailbox.folder)).values()].every((f) => !f.includes('\\Seen'))).toBe(true);
    const [view] = await new MailboxService(app.orm.em.fork(), { secrets: () => testSecrets }).list(t.ws.workspaceId);
    expect(view.mails).toEqual({ imported: 0, ignored: 6, skipped: 0 });
  });

  it('a mail over the size limit is recorded as skipped, shown in the list, and does not hold up the next', async () => {
    const t = await setUp({ maxMailBytes: 20_000 });
    t.start();
    await t.append({ subject: 'Huge attachment', body: 'y'.repeat(30_000) });
    await t.append({ subject: 'Small one' });
    const receipts = await t.taken(2);
    expect(receipts.map((r) => r.outcome)).toEqual(['too_large', 'ticket']);
    expect((await t.tickets()).map((x) => x.subject)).toEqual(['Small one']);
    const [view] = await new MailboxService(app.orm.em.fork(), { secrets: () => testSecrets }).list(t.ws.workspaceId);
    expect(view.mails).toEqual({ imported: 1, ignored: 0, skipped: 1 });
    expect(view.lastSkipped).toMatchObject({ outcome: 'too_large' });
    expect(view.lastSkipped!.detail).toMatch(/over the limit of 20000 \(from casey@example\.com: "Huge attachment"\)/);
  });
});

describe('replies', () => {
  it('join their ticket by header, emit the customer-reply event and reopen a pending ticket', async () => {
    const t = await setUp();
    t.start();
    await t.append({ messageId: '<first@example.com>', subject: 'Printer on fire' });
    const [ticket] = await eventually(async () => ((await t.tickets()).length ? t.tickets() : undefined), 10_000, 'a ticket');
    expect((await t.api.patch(`/api/v1/tickets/${ticket.id}`, { status: 'pending' })).status).toBe(200);
    await t.append({ messageId: '<second@example.com>', inReplyTo: '<first@example.com>', references: '<first@example.com>', subject: 'Re: something else entirely', body: 'Still smoking.' });
    // A colleague answering in the thread joins it too, without the customer-reply event.
    await t.append({ from: 'Pat <pat@example.com>', references: '<first@example.com> <second@example.com>', subject: 'Re: Printer', body: 'I am Casey’s colleague.' });
    await t.taken(3);
    expect(await t.tickets()).toHaveLength(1);
    const messages = await t.messages(ticket.id);
    expect(messages.map((m) => [m.senderEmail, m.body])).toEqual([
      ['casey@example.com', 'It started smoking this morning.'],
      ['casey@example.com', 'Still smoking.'],
      ['pat@example.com', 'I am Casey’s colleague.'],
    ]);
    expect((await t.api.get(`/api/v1/tickets/${ticket.id}`)).body.data.status).toBe('open');
    const events = (await t.events()).map((e) => e.type).sort();
    // Pat's mail is no customer reply: a message_added, which starts nothing.
    expect(events).toEqual(['message_added', 'message_received', 'ticket_created', 'ticket_updated', 'ticket_updated']);
  });

  it('thread by the subject reference only when the customer sends it; a stranger starts a new ticket', async () => {
    const t = await setUp();
    t.start();
    await t.append({ subject: 'Printer on fire' });
    const [ticket] = await eventually(async () => ((await t.tickets()).length ? t.tickets() : undefined), 10_000, 'a ticket');
    const ref = ticket.id.replace(/-/g, '').slice(0, 10);
    await t.append({ subject: `Re: Printer on fire [Ticket#${ref}]`, body: 'From Casey, by reference.' });
    await t.append({ from: 'Mallory <mallory@example.com>', subject: `Re: Printer on fire [Ticket#${ref}]`, body: 'Not the customer.' });
    await t.taken(3);
    const tickets = await t.tickets();
    expect(tickets).toHaveLength(2);
    const stranger = tickets.find((x) => x.id !== ticket.id);
    expect(stranger).toMatchObject({ customerEmail: 'mallory@example.com', subject: 'Re: Printer on fire' });
    expect((await t.messages(ticket.id)).map((m) => m.body)).toEqual(['It started smoking this morning.', 'From Casey, by reference.']);
  });
});

describe('the reply address', () => {
  it('a mail to a ticket’s reply address joins it, whoever sends it; a forged one of another workspace does not', async () => {
    const t = await setUp();
    t.start();
    await t.append({ subject: 'Printer on fire' });
    const [ticket] = await eventually(async () => ((await t.tickets()).length ? t.tickets() : undefined), 10_000, 'a ticket');
    const hex = ticket.id.replace(/-/g, '');
    await t.append({ from: 'Pat <pat@example.com>', to: `support+${hex}@acme.example`, subject: 'Forwarded to me', body: 'Casey forwarded your mail; I am the office manager.' });
    const other = await createWorkspace(app.orm);
    const otherTicket = (await client(app.baseUrl, other.key).post('/api/v1/tickets', { subject: 'Elsewhere', customerEmail: 'x@example.com', body: 'x' })).body.data.id;
    await t.append({ from: 'Mallory <mallory@example.com>', to: `support+${otherTicket.replace(/-/g, '')}@acme.example`, subject: 'Guessing', body: 'Not yours.' });
    await t.taken(3);
    expect((await t.messages(ticket.id)).map((m) => m.senderEmail)).toEqual(['casey@example.com', 'pat@example.com']);
    const tickets = await t.tickets();
    expect(tickets.map((x) => x.subject).sort()).toEqual(['Guessing', 'Printer on fire']);
    // Pat is not the customer: saved only, no customer-reply event (a message_added, which starts nothing).
    expect((await t.events()).filter((e) => e.type === 'message_received')).toEqual([]);
    const added = (await t.events()).filter((e) => e.type === 'message_added');
    expect(added.map((e) => [e.ticketId, (e.payload.message as { senderEmail: string }).senderEmail])).toEqual([[ticket.id, 'pat@example.com']]);
  });
});

describe('exactly once', () => {
  it('the same mail delivered twice (one Message-ID) is one ticket', async () => {
    const t = await setUp();
    t.start();
    const mail = { messageId: '<twice@example.com>', subject: 'Sent twice' };
    await t.append(mail);
    await t.append(mail);
    const receipts = await t.taken(2);
    expect(receipts.map((r) => r.outcome)).toEqual(['ticket', 'duplicate']);
    expect(await t.tickets()).toHaveLength(1);
    expect((await t.events()).map((e) => e.type)).toEqual(['ticket_created']);
    // `mailbox list`: the second delivery made nothing new, so it is not counted as imported.
    const [view] = await new MailboxService(app.orm.em.fork(), { secrets: () => testSecrets }).list(t.ws.workspaceId);
    expect(view.mails).toEqual({ imported: 1, ignored: 1, skipped: 0 });
  });

  it('a worker restarted between mails loses and doubles nothing; mail that came meanwhile is taken in once', async () => {
    const t = await setUp();
    const first = t.start();
    await t.append({ subject: 'one' });
    await t.taken(1);
    await first.stop();
    await t.append({ subject: 'two' });
    await t.append({ subject: 'three' });
    t.start();
    await t.taken(3);
    await t.append({ subject: 'four' });
    await t.taken(4);
    expect((await t.tickets()).map((x) => x.subject).sort()).toEqual(['four', 'one', 'three', 'two']);
    expect((await t.receipts()).map((r) => r.outcome)).toEqual(['ticket', 'ticket', 'ticket', 'ticket']);
  });

  it('two workers: one reads the mailbox; when it stops, the other takes over; every mail once', async () => {
    const t = await setUp();
    const a = t.start();
    const b = t.start();
    await eventually(async () => (a.watching().length + b.watching().length === 1 ? true : undefined), 5_000, 'one watcher');
    for (let i = 0; i < 5; i++) await t.append({ subject: `mail ${i}` });
    await t.taken(5);
    const [holder, other] = a.watching().length ? [a, b] : [b, a];
    await holder.stop();
    await eventually(async () => (other.watching().length === 1 ? true : undefined), 5_000, 'the other worker taking over');
    for (let i = 5; i < 8; i++) await t.append({ subject: `mail ${i}` });
    await t.taken(8);
    expect((await t.tickets()).length).toBe(8);
    expect(new Set((await t.receipts()).map((r) => r.uid)).size).toBe(8);
  });

  it('IMAP down then back: the mailbox shows the error, then every mail is taken in once', async () => {
    const t = await setUp();
    t.start();
    await t.append({ subject: 'before' });
    await t.taken(1);
    const view = () => new MailboxService(app.orm.em.fork(), { secrets: () => testSecrets }).list(t.ws.workspaceId).then((v) => v[0]);
    await dovecot.stop();
    try {
      const down = await eventually(async () => ((await view()).state === 'error' ? view() : undefined), 15_000, 'the error state');
      expect(down.lastError).toMatch(/closed the connection|connection refused/);
    } finally {
      // The tests after this one need the server, whatever this one found.
      await dovecot.start();
    }
    for (const subject of ['after 1', 'after 2', 'after 3']) await t.append({ subject });
    await t.taken(4, 90_000);
    expect((await t.tickets()).map((x) => x.subject).sort()).toEqual(['after 1', 'after 2', 'after 3', 'before']);
    // The state is written once the pass that took the mail in has ended, after the mail's own commits.
    await eventually(async () => ((await view()).state === 'watching' ? true : undefined), 10_000, 'the watching state');
    // Recovered: the error is over and `mailbox list` no longer shows it.
    expect(await view()).toMatchObject({ lastError: null, lastErrorAt: null });
  }, 120_000);

  it('a new UIDVALIDITY: the folder is read afresh, what was taken in is recognised, new mail comes in', async () => {
    const t = await setUp();
    t.start();
    await t.append({ subject: 'a' });
    await t.append({ subject: 'b' });
    await t.taken(2);
    const before = (await app.orm.em.fork().find(MailReceipt, { mailbox: t.mailbox.id }))[0].uidValidity;
    await dovecot.renumber();
    await t.append({ subject: 'c' });
    const receipts = await t.taken(5, 90_000);
    expect(receipts.filter((r) => r.uidValidity !== before).map((r) => r.outcome).sort()).toEqual(['duplicate', 'duplicate', 'ticket']);
    expect((await t.tickets()).map((x) => x.subject).sort()).toEqual(['a', 'b', 'c']);
  }, 120_000);

  it('a crash between the commit and the \\Seen flag: the flag is set on the next read', async () => {
    const t = await setUp();
    const worker = t.start();
    const uid = await t.append({ subject: 'flag me' });
    await eventually(async () => ((await dovecot.flags(t.mailbox.folder)).get(uid)?.includes('\\Seen') ? true : undefined), 10_000, 'the flag');
    await worker.stop();
    await dovecot.removeFlags([uid], ['\\Seen'], t.mailbox.folder);
    await app.orm.em.fork().nativeUpdate(MailReceipt, { mailbox: t.mailbox.id }, { seenAt: null });
    t.start();
    await eventually(async () => ((await dovecot.flags(t.mailbox.folder)).get(uid)?.includes('\\Seen') ? true : undefined), 10_000, 'the flag again');
    expect(await t.tickets()).toHaveLength(1);
  });
});
