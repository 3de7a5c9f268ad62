import { describe, expect, it } from 'vitest';
import { chooseThread, replyAddress, stripSubjectTokens, subjectToken, threadKeys, ticketRef } from '../../../src/mail/thread.ts';

// Which ticket a mail belongs to: headers, then the reply address, then the subject reference (only from the customer).

const TICKET = '1a2b3c4d-5e6f-4a1b-8c2d-0123456789ab';
const MAILBOX = 'support@acme.example';

describe('references Deskflow puts into its mail', () => {
  it('a subject token of 10 hex digits, and a reply address with the whole ticket id', () => {
    expect(ticketRef(TICKET)).toBe('1a2b3c4d5e');
    expect(subjectToken(TICKET)).toBe('[Ticket#1a2b3c4d5e]');
    expect(replyAddress(MAILBOX, TICKET)).toBe('support+1a2b3c4d5e6f4a1b8c2d0123456789ab@acme.example');
    expect(stripSubjectTokens('Re: Printer [Ticket#1a2b3c4d5e]  on fire')).toBe('Re: Printer on fire');
  });
});

describe('threadKeys', () => {
  it('orders In-Reply-To first, then References from the newest', () => {
    const keys = threadKeys({ inReplyTo: ['<c@x>'], references: ['<a@x>', '<b@x>', '<c@x>'], subject: 'hi', recipients: [] }, MAILBOX);
    expect(keys).toEqual({ messageIds: ['<c@x>', '<b@x>', '<a@x>'], replyAddressTicketId: null, subjectRef: null });
  });

  it('reads the reply address of this mailbox only, and the subject token in any case', () => {
    const keys = threadKeys(
      { inReplyTo: [], references: [], subject: 'RE: Printer [TICKET#1A2B3C4D5E]', recipients: ['support+1a2b3c4d5e6f4a1b8c2d0123456789ab@acme.example'] },
      MAILBOX,
    );
    expect(keys.replyAddressTicketId).toBe(TICKET);
    expect(keys.subjectRef).toBe('1a2b3c4d5e');
    expect(threadKeys({ inReplyTo: [], references: [], subject: '', recipients: ['other+1a2b3c4d5e6f4a1b8c2d0123456789ab@acme.example'] }, MAILBOX).replyAddressTicketId).toBeNull();
  });
});

describe('chooseThread', () => {
  const match = { ticketId: TICKET, customerEmail: 'casey@example.com' };
  const other = { ticketId: 'other', customerEmail: 'dana@example.com' };

  it('prefers the headers, then the reply address, whoever sent it', () => {
    expect(chooseThread({ byHeader: match, byReplyAddress: other, bySubject: other }, 'stranger@example.com')).toEqual({ ticketId: TICKET, by: 'header' });
    expect(chooseThread({ byHeader: null, byReplyAddress: match, bySubject: other }, 'stranger@example.com')).toEqual({ ticketId: TICKET, by: 'reply_address' });
  });

  it('takes the subject reference only from the ticket customer', () => {
    expect(chooseThread({ byHeader: null, byReplyAddress: null, bySubject: match }, ' Casey@Example.com ')).toEqual({ ticketId: TICKET, by: 'subject' });
    const stranger = chooseThread({ byHeader: null, byReplyAddress: null, bySubject: match }, 'mallory@example.com');
    expect(stranger.ticketId).toBeNull();
    expect(chooseThread({ byHeader: null, byReplyAddress: null, bySubject: null }, 'casey@example.com').ticketId).toBeNull();
  });
});
