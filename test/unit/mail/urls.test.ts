import { describe, expect, it } from 'vitest';
import { displayUrl, isLoopbackHost, MailUrlError, parseImapUrl, parseSmtpUrl } from '../../../src/mail/urls.ts';

// The mailbox URLs of `admin mailbox add` and their TLS rule, without a server.

const strict = { allowInsecure: false };

describe('IMAP URLs', () => {
  it('reads imaps with its default port, folder INBOX and a percent-encoded password', () => {
    expect(parseImapUrl('imaps://support%40acme.example:p%3Ass%2Fword@imap.acme.example', strict)).toEqual({
      endpoint: { host: 'imap.acme.example', port: 993, security: 'tls', plaintextAllowed: false, user: 'support@acme.example', folder: 'INBOX' },
      password: 'p:ss/word',
    });
  });

  it('reads imap (STARTTLS) with a port and a folder', () => {
    const { endpoint } = parseImapUrl('imap://u:p@mail.example:1143/Support%20Desk', strict);
    expect(endpoint).toMatchObject({ port: 1143, security: 'starttls', plaintextAllowed: false, folder: 'Support Desk' });
  });

  it('lets a loopback host, or --allow-insecure, go without TLS when the server offers none', () => {
    expect(parseImapUrl('imap://u:p@127.0.0.1:3143', strict).endpoint.plaintextAllowed).toBe(true);
    expect(parseImapUrl('imap://u:p@localhost', strict).endpoint.plaintextAllowed).toBe(true);
    expect(parseImapUrl('imap://u:p@[::1]:143', strict).endpoint).toMatchObject({ host: '::1', plaintextAllowed: true });
    expect(parseImapUrl('imap://u:p@mail.example', strict).endpoint.plaintextAllowed).toBe(false);
    expect(parseImapUrl('imap://u:p@mail.example', { allowInsecure: true }).endpoint.plaintextAllowed).toBe(true);
    // TLS from the first byte needs no such allowance.
    expect(parseImapUrl('imaps://u:p@127.0.0.1', strict).endpoint.plaintextAllowed).toBe(false);
  });

  it.each([
    ['not a url', /is not a URL/],
    ['http://u:p@mail.example', /must start with imaps:\/\/ or imap:\/\//],
    ['imaps://mail.example', /names no user/],
    ['imaps://user@mail.example', /has no password/],
    ['imaps://u:p@mail.example/INBOX?x=1', /must not have a query/],
    ['imaps://u:%E0%A4%A@mail.example', /malformed percent-encoding/],
  ])('refuses %s', (url, message) => {
    expect(() => parseImapUrl(url, strict)).toThrow(MailUrlError);
    expect(() => parseImapUrl(url, strict)).toThrow(message);
  });
});

describe('SMTP URLs', () => {
  it('reads smtps (465) and smtp (587, STARTTLS)', () => {
    expect(parseSmtpUrl('smtps://u:p@smtp.example', strict).endpoint).toEqual({ host: 'smtp.example', port: 465, security: 'tls', plaintextAllowed: false, user: 'u' });
    expect(parseSmtpUrl('smtp://u:p@smtp.example', strict).endpoint).toMatchObject({ port: 587, security: 'starttls', plaintextAllowed: false });
  });

  it('refuses a path and an IMAP scheme', () => {
    expect(() => parseSmtpUrl('smtp://u:p@smtp.example/INBOX', strict)).toThrow(/must not have a path/);
    expect(() => parseSmtpUrl('imaps://u:p@smtp.example', strict)).toThrow(/smtps:\/\/ or smtp:\/\//);
  });
});

describe('display', () => {
  it('never shows the password', () => {
    const { endpoint } = parseImapUrl('imaps://support%40acme.example:hunter2@imap.acme.example/Support%20Desk', strict);
    const shown = displayUrl('imap', endpoint);
    expect(shown).toBe('imaps://support%40acme.example@imap.acme.example:993/Support%20Desk');
    expect(shown).not.toContain('hunter2');
    expect(displayUrl('smtp', parseSmtpUrl('smtp://u:secret@[::1]:2525', strict).endpoint)).toBe('smtp://u@[::1]:2525');
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'app.localhost'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', 'mail.example', '128.0.0.1', 'localhost.example'].some(isLoopbackHost)).toBe(false);
  });
});
