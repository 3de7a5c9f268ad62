import { describe, expect, it } from 'vitest';
import { continueThread, outboundMessageId, replySubject, toSendOptions, type OutboundMail } from '../../../src/mail/compose.ts';

// The headers of the mail Deskflow sends for an outbound message.

const TICKET = '1a2b3c4d-5e6f-4a1b-8c2d-0123456789ab';

describe('replySubject', () => {
  it('adds Re: once and the ticket reference once', () => {
    expect(replySubject('Printer on fire', TICKET)).toBe('Re: Printer on fire [Ticket#1a2b3c4d5e]');
    expect(replySubject('RE: Printer on fire', TICKET)).toBe('RE: Printer on fire [Ticket#1a2b3c4d5e]');
    expect(replySubject('Re: Printer [Ticket#1a2b3c4d5e]', TICKET)).toBe('Re: Printer [Ticket#1a2b3c4d5e]');
  });
});

describe('continueThread', () => {
  it('answers the parent and carries its References', () => {
    expect(continueThread({ rfcMessageId: '<c@x>', references: ['<a@x>', '<b@x>'] })).toEqual({ inReplyTo: '<c@x>', references: ['<a@x>', '<b@x>', '<c@x>'] });
    expect(continueThread(null)).toEqual({ inReplyTo: null, references: [] });
  });

  it('keeps the root and the newest 19 of a long thread', () => {
    const refs = Array.from({ length: 40 }, (_, i) => `<${i}@x>`);
    const { references } = continueThread({ rfcMessageId: '<40@x>', references: refs });
    expect(references).toHaveLength(20);
    expect(references[0]).toBe('<0@x>');
    expect(references.at(-1)).toBe('<40@x>');
    expect(references[1]).toBe('<22@x>');
  });
});

describe('toSendOptions', () => {
  const mail: OutboundMail = {
    from: { address: 'support@acme.example', name: 'Acme Support' },
    to: { address: 'casey@example.com', name: 'Casey' },
    subject: 'Re: Printer [Ticket#1a2b3c4d5e]',
    messageId: outboundMessageId('9f1c', 'support@ACME.example'),
    inReplyTo: '<c@x>',
    references: ['<a@x>', '<c@x>'],
    text: 'We are on it.',
    html: null,
    automatic: true,
    replyToTicket: null,
  };

  it('carries the thread, the fixed Message-ID and Auto-Submitted on automation replies', () => {
    const options = toSendOptions(mail);
    expect(options.messageId).toBe('<deskflow.9f1c@acme.example>');
    expect(options).toMatchObject({ inReplyTo: '<c@x>', references: ['<a@x>', '<c@x>'], text: 'We are on it.', envelope: { from: 'support@acme.example', to: ['casey@example.com'] } });
    expect(options.headers).toMatchObject({ 'Auto-Submitted': 'auto-replied' });
    expect(options).not.toHaveProperty('html');
    expect(options).not.toHaveProperty('replyTo');
  });

  it('sends HTML when there is some, no Auto-Submitted for people, and the reply address when asked', () => {
    const options = toSendOptions({ ...mail, automatic: false, html: '<p>Hi</p>', inReplyTo: null, references: [], replyToTicket: { ticketId: TICKET } });
    expect(options.html).toBe('<p>Hi</p>');
    expect(options.headers).toEqual({});
    expect(options).not.toHaveProperty('inReplyTo');
    expect(options.replyTo).toEqual({ name: 'Acme Support', address: 'support+1a2b3c4d5e6f4a1b8c2d0123456789ab@acme.example' });
  });
});
