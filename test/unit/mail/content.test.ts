import { describe, expect, it } from 'vitest';
import { customerOf, cutToCodePoints, LIMITS, mailBody, sanitizeMailHtml, ticketSubject } from '../../../src/mail/content.ts';

// What of a mail goes into a ticket, within the interface's limits.

const codePoints = (s: string) => [...s].length;
const body = (over: Partial<Parameters<typeof mailBody>[0]>) => mailBody({ text: '', html: null, attachments: [], messageId: '<m@x>', ...over });

describe('subject and customer', () => {
  it('uses (no subject) for an empty one, cuts at 500 characters and drops Deskflow references', () => {
    expect(ticketSubject('   ')).toBe('(no subject)');
    expect(ticketSubject('Hello [Ticket#0123456789abc] [Ticket#0123456789]')).toBe('Hello [Ticket#0123456789abc]');
    const long = ticketSubject('😀'.repeat(600));
    expect(codePoints(long)).toBe(500);
  });

  it('takes Reply-To before From and refuses what is not an address', () => {
    expect(customerOf({ from: { address: 'form@site.example', name: 'Site' }, replyTo: { address: 'casey@example.com', name: 'Casey' } })).toEqual({ address: 'casey@example.com', name: 'Casey' });
    expect(customerOf({ from: { address: 'casey@example.com', name: null }, replyTo: { address: 'not an address', name: null } })?.address).toBe('casey@example.com');
    expect(customerOf({ from: { address: 'nobody', name: null }, replyTo: null })).toBeNull();
    expect(customerOf({ from: { address: 'a@b', name: 'x'.repeat(300) }, replyTo: null })?.name).toHaveLength(200);
  });
});

describe('sanitizeMailHtml', () => {
  it('keeps formatting and links, drops scripts, handlers, styles, frames and remote images', () => {
    const html = sanitizeMailHtml(
      '<p onclick="x()" style="color:red">Hi <b>there</b><script>alert(1)</script></p><a href="javascript:alert(1)">x</a><a href="https://acme.example">ok</a>' +
        '<img src="https://tracker.example/p.gif"><img src="data:image/png;base64,AAAA"><iframe src="https://x"></iframe><style>p{}</style><form><input></form>',
    );
    expect(html).not.toMatch(/script|onclick|style|iframe|javascript|tracker|<form|<input/);
    expect(html).toContain('<b>there</b>');
    expect(html).toContain('href="https://acme.example"');
    expect(html).toContain('src="data:image/png;base64,AAAA"');
  });
});

describe('mailBody', () => {
  it('uses the text part, or a placeholder, and names attachments', () => {
    expect(body({ text: 'Hello\r\n\r\n' }).body).toBe('Hello');
    expect(body({ text: ' ' }).body).toBe('(no text)');
    expect(body({ text: 'See attached', attachments: [{ filename: 'invoice.pdf', size: 120_000 }] }).body).toBe(
      'See attached\n\n[Attachments, kept in the mailbox only: invoice.pdf (117 KB)]',
    );
  });

  it('cuts a text over 100,000 characters to the limit with a note', () => {
    const result = body({ text: '😀'.repeat(150_000) });
    expect(codePoints(result.body)).toBe(LIMITS.body);
    expect(result.body).toMatch(/\[Cut by Deskflow: this text has 150000 characters; .*Message-ID <m@x>\)\.\]$/);
    expect(result.notes).toEqual(['text cut from 150000 to 100000 characters']);
  });

  it('cuts HTML over 200,000 characters and keeps it well-formed', () => {
    const result = body({ text: 'x', html: '<div><p>' + 'a <b>bold</b> word '.repeat(20_000) + '</p></div>' });
    expect(codePoints(result.bodyHtml!)).toBeLessThanOrEqual(LIMITS.bodyHtml);
    expect(result.bodyHtml).toMatch(/^<div><p>a <b>bold<\/b>/);
    expect(result.bodyHtml).toMatch(/<\/div><p>\[Cut by Deskflow: this HTML has \d+ characters;/);
    expect(result.notes).toHaveLength(1);
  });

  it('has no HTML body when sanitising leaves nothing', () => {
    expect(body({ text: 'x', html: '<script>alert(1)</script>' }).bodyHtml).toBeNull();
  });

  it('cuts by code points, never inside a pair', () => {
    expect(cutToCodePoints('a😀b', 2)).toBe('a😀');
  });
});
