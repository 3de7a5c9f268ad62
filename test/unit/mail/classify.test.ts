import { describe, expect, it } from 'vitest';
import { bounceReport, classifyMail, isOwnAddress } from '../../../src/mail/classify.ts';
import type { MailFacts } from '../../../src/mail/parse.ts';

// Which mail may become a ticket: own mail, bounces and automatic mail never do.

const MAILBOX = 'support@acme.example';

function mail(headers: Record<string, string> = {}, from = 'casey@example.com', contentType = 'text/plain; charset=utf-8') {
  return {
    from: { address: from, name: null },
    headers: new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])),
    contentType,
  } satisfies Pick<MailFacts, 'from' | 'headers' | 'contentType'>;
}

describe('classifyMail', () => {
  it('takes an ordinary mail as written by a person', () => {
    expect(classifyMail(mail(), MAILBOX).kind).toBe('human');
    expect(classifyMail(mail({ 'Auto-Submitted': 'no' }), MAILBOX).kind).toBe('human');
    expect(classifyMail(mail({ Precedence: 'first-class' }), MAILBOX).kind).toBe('human');
  });

  it('knows its own address and its sub-addresses, in any case', () => {
    expect(classifyMail(mail({}, 'Support@ACME.example'), MAILBOX).kind).toBe('own');
    expect(classifyMail(mail({}, 'support+0123@acme.example'), MAILBOX).kind).toBe('own');
    expect(isOwnAddress('support@other.example', MAILBOX)).toBe(false);
    expect(isOwnAddress('supporter@acme.example', MAILBOX)).toBe(false);
  });

  it.each([
    ['a delivery status report', mail({}, 'casey@example.com', 'multipart/report; report-type=delivery-status; boundary="b"')],
    ['a quoted report type', mail({}, 'x@example.com', 'multipart/report; report-type="delivery-status"')],
    ['mail from MAILER-DAEMON', mail({}, 'MAILER-DAEMON@mx.example.com')],
    ['mail from postmaster', mail({}, 'postmaster@example.com')],
    ['X-Failed-Recipients', mail({ 'X-Failed-Recipients': 'casey@example.com' })],
  ])('calls %s a bounce', (_, m) => {
    expect(classifyMail(m, MAILBOX).kind).toBe('bounce');
  });

  it.each([
    ['Auto-Submitted: auto-replied', { 'Auto-Submitted': 'auto-replied' }],
    ['Auto-Submitted: auto-generated', { 'Auto-Submitted': 'auto-generated; owner-email="x@example.com"' }],
    ['X-Autoreply', { 'X-Autoreply': 'yes' }],
    ['X-Autorespond', { 'X-Autorespond': 'Out of office' }],
    ['Precedence: bulk', { Precedence: 'bulk' }],
    ['Precedence: junk', { Precedence: 'junk' }],
    ['Precedence: list', { Precedence: 'List' }],
    ['Precedence: auto_reply', { Precedence: 'auto_reply' }],
    ['List-Id', { 'List-Id': '<news.example.com>' }],
    ['an empty return path', { 'Return-Path': '<>' }],
  ])('calls mail with %s automatic', (_, headers) => {
    const result = classifyMail(mail(headers), MAILBOX);
    expect(result.kind).toBe('automatic');
    expect(result.reason).not.toBe('');
  });
});

describe('bounceReport', () => {
  it('finds the returned Message-ID and the diagnostic', () => {
    const sourceHead = [
      'From: MAILER-DAEMON@mx.example.com',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Final-Recipient: rfc822; nobody@example.com',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.com>:',
      '  Recipient address rejected: User unknown',
      '--b',
      'Content-Type: text/rfc822-headers',
      '',
      'Message-ID: <deskflow.1234@acme.example>',
      'Subject: Re: Printer [Ticket#0123456789]',
    ].join('\r\n');
    const report = bounceReport({ sourceHead, inReplyTo: [], references: [], subject: 'Undelivered Mail Returned to Sender' });
    expect(report.messageIds).toContain('<deskflow.1234@acme.example>');
    expect(report.diagnostic).toBe('smtp; 550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown');
  });

  it('falls back on Status and the subject', () => {
    expect(bounceReport({ sourceHead: 'Status: 5.2.2 (mailbox full)\r\n', inReplyTo: ['<a@b>'], references: [], subject: 's' })).toEqual({
      messageIds: ['<a@b>'],
      diagnostic: '5.2.2 (mailbox full)',
    });
    expect(bounceReport({ sourceHead: '', inReplyTo: [], references: [], subject: 'Delivery failed' }).diagnostic).toBe('Delivery failed');
  });
});
