import { describe, expect, it } from 'vitest';
import { MailDelivery, MailMessage } from '../../src/mail/entity.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { rawMail } from '../helpers/mail-servers.ts';
import { useMailChannel } from '../helpers/mail-channel.ts';
import { activeWorkflow, executionAtStep, finishedExecutions, getTicket, openTicket, readMessages, stepOf } from '../helpers/api.ts';
import { eventually } from '../helpers/poll.ts';

/**
 * The whole channel on real servers: a customer's mail (Dovecot) becomes a ticket, the
 * automation's send_reply reaches the customer (Mailpit) threaded under that mail, the
 * customer's answer lands on the ticket and wakes the run waiting for it. Delivery is a step
 * of the run: an SMTP outage is waited out and the mail goes out once; a refusal fails the step.
 */
const app = useEngineApp();
const { dovecot, mailpit, withMailbox } = useMailChannel(app);

const sentTo = async (subjectPart: string) => (await mailpit.messages()).filter((m) => m.Subject.includes(subjectPart));

describe('send_reply by mail', () => {
  it('answers a mailed ticket, threaded; the customer’s answer wakes the waiting run', async () => {
    const { api, mailbox } = await withMailbox();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > ack, ack > wait, wait >true answered, wait >false nudge', [
      { id: 'ack', type: 'action', data: { actionType: 'send_reply', body: 'Hi {{ticket.customerName}}, we got it.', bodyHtml: '<p>Hi <b>{{ticket.customerName}}</b>, we got it.</p>' } },
      { id: 'wait', type: 'action', data: { actionType: 'wait_for_reply', timeoutSeconds: 120 } },
      { id: 'answered', type: 'action', data: { actionType: 'add_tag', tag: 'answered' } },
      { id: 'nudge', type: 'action', data: { actionType: 'add_tag', tag: 'silent' } },
    ]);
    await dovecot.append(rawMail({ from: 'Casey Customer <casey@example.com>', subject: 'Printer on fire', messageId: '<casey-fire@example.com>' }), { folder: mailbox.folder });
    const waiting = await executionAtStep(api, workflowId, 'wait', 'waiting', 20_000);
    expect(stepOf(waiting, 'ack')).toMatchObject({ status: 'completed', result: { delivery: 'sent' } });
    const { messageId } = stepOf(waiting, 'ack')!.result as { messageId: string };

    const [mail] = await sentTo('Printer on fire');
    const ticket = await getTicket(api, waiting.ticketId!);
    const ref = ticket.id.replace(/-/g, '').slice(0, 10);
    expect(mail.Subject).toBe(`Re: Printer on fire [Ticket#${ref}]`);
    expect(mail.From).toEqual({ Name: 'Acme Support', Address: 'support@acme.example' });
    expect(mail.To).toEqual([{ Name: 'Casey Customer', Address: 'casey@example.com' }]);
    const headers = await mailpit.headers(mail.ID);
    expect(headers['Auto-Submitted']).toEqual(['auto-replied']);
    expect(headers['In-Reply-To']).toEqual(['<casey-fire@example.com>']);
    expect(headers['References']).toEqual(['<casey-fire@example.com>']);
    const stored = await app.orm.em.fork().findOneOrFail(MailMessage, { message: messageId });
    expect(`<${mail.MessageID}>`).toBe(stored.rfcMessageId);
    expect((await mailpit.bodies(mail.ID)).HTML).toContain('<p>Hi <b>Casey Customer</b>, we got it.</p>');

    // The customer's mail program answers: In-Reply-To names Deskflow's mail.
    await dovecot.append(rawMail({ subject: `Re: Printer on fire [Ticket#${ref}]`, inReplyTo: stored.rfcMessageId, references: `<casey-fire@example.com> ${stored.rfcMessageId}`, body: 'Thanks, it is out.' }), { folder: mailbox.folder });
    const [done] = await finishedExecutions(api, workflowId, 1, 20_000);
    expect(stepOf(done, 'wait')).toMatchObject({ status: 'completed', result: true });
    expect((await getTicket(api, ticket.id)).tags).toEqual(['answered']);
    expect((await readMessages(api, ticket.id)).map((m) => [m.direction, m.body])).toEqual([
      ['inbound', 'It started smoking this morning.'],
      ['outbound', 'Hi Casey Customer, we got it.'],
      ['inbound', 'Thanks, it is out.'],
    ]);
    // Deskflow's own mail (if it came back to the mailbox) and its auto-reply never loop.
    expect(await sentTo('Printer on fire')).toHaveLength(1);
  });

  it('waits out an SMTP outage as a step of the run, then sends the mail once', async () => {
    const { api } = await withMailbox();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > ack', [{ id: 'ack', type: 'action', data: { actionType: 'send_reply', body: 'Got it.' } }]);
    await mailpit.stop();
    let ticketId: string;
    try {
      ticketId = await openTicket(api, { subject: 'Outage reply' });
      const waiting = await executionAtStep(api, workflowId, 'ack', 'waiting', 20_000);
      const { messageId } = waiting.steps.find((s) => s.nodeId === 'ack')!.result as { messageId: string };
      await eventually(async () => ((await app.orm.em.fork().findOne(MailDelivery, { message: messageId }))!.attempts >= 2 ? true : undefined), 20_000, 'failed attempts');
    } finally {
      await mailpit.start();
    }
    const [execution] = await finishedExecutions(api, workflowId, 1, 90_000);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'ack')).toMatchObject({ status: 'completed', result: { delivery: 'sent' } });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await sentTo('Outage reply')).toHaveLength(1);
    expect((await readMessages(api, ticketId!)).filter((m) => m.direction === 'outbound')).toHaveLength(1);
  }, 150_000);

  it('a permanent refusal (5xx) fails the step with the server’s answer', async () => {
    const { api } = await withMailbox();
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > ack', [{ id: 'ack', type: 'action', data: { actionType: 'send_reply', body: 'Got it.' } }]);
    await mailpit.chaos({ Recipient: { ErrorCode: 550, Probability: 100 } });
    await openTicket(api, { subject: 'Refused reply' });
    const [execution] = await finishedExecutions(api, workflowId, 1, 30_000);
    expect(execution.status).toBe('failed');
    const step = stepOf(execution, 'ack')!;
    expect(step.status).toBe('failed');
    expect(step.error).toMatch(/The SMTP server refused the mail to customer@example\.com: .*550/);
    expect(execution.error).toMatch(/Node "ack" \(send_reply\) failed: The SMTP server refused the mail/);
  });

  it('without a mailbox the reply is saved only: delivery not_configured', async () => {
    const { api } = await engineWorkspace(app);
    const workflowId = await activeWorkflow(api, 'ticket_created', 'start > ack', [{ id: 'ack', type: 'action', data: { actionType: 'send_reply', body: 'Got it.' } }]);
    const ticketId = await openTicket(api, { subject: 'No mailbox' });
    const [execution] = await finishedExecutions(api, workflowId);
    expect(stepOf(execution, 'ack')).toMatchObject({ status: 'completed', result: { delivery: 'not_configured' } });
    const outbound = (await readMessages(api, ticketId)).find((m) => m.direction === 'outbound');
    expect((stepOf(execution, 'ack')!.result as { messageId: string }).messageId).toBe(outbound.id);
    expect(await sentTo('No mailbox')).toHaveLength(0);
  });

  it('a dry run lists the mail it would send', async () => {
    const { api } = await withMailbox();
    const ticketId = await openTicket(api, { subject: 'Dry mail', customerEmail: 'dana@example.com' });
    const res = await api.post('/api/workflows/dry-run', {
      triggerType: 'manual',
      workflowJson: { nodes: [{ id: 'start', type: 'trigger', data: { triggerType: 'manual' } }, { id: 'r', type: 'action', data: { actionType: 'send_reply', body: 'Hi' } }], edges: [{ source: 'start', target: 'r' }] },
      ticketId,
    });
    expect(res.status).toBe(200);
    expect(res.body.dryRun.outbound).toEqual([
      { nodeId: 'r', type: 'send_reply', to: 'dana@example.com', subject: `Re: Dry mail [Ticket#${ticketId.replace(/-/g, '').slice(0, 10)}]`, delivery: 'mail', body: 'Hi' },
    ]);
  });
});
