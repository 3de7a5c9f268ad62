import { describe, expect, it } from 'vitest';
import { connectionProblem, sessionProblem } from '../../../src/mail/connections.ts';

describe('connectionProblem: what a mailbox list says when a mail server cannot be used', () => {
  it('names a refused connection, with the system error behind the library error', () => {
    expect(connectionProblem(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:993'), { code: 'ESOCKET' }))).toBe('connection refused (connect ECONNREFUSED 127.0.0.1:993)');
  });

  it('says the server closed the connection where the IMAP library only says it has none', () => {
    expect(connectionProblem(Object.assign(new Error('Connection not available'), { code: 'NoConnection' }))).toBe('the server closed the connection (Connection not available)');
  });

  it('names failed authentication with the server words', () => {
    expect(connectionProblem({ authenticationFailed: true, responseText: ' Authentication failed. ' })).toBe('authentication failed: Authentication failed.');
  });
});

describe('sessionProblem: what a mailbox that was being read says when its session ends', () => {
  const noMailbox = Object.assign(new Error('No mailbox is selected'), { code: 'NoMailboxSelected' });

  it('says the server closed the connection, with its BYE, when a command came after the BYE', () => {
    expect(sessionProblem(noMailbox, { byeReason: 'Server shutting down.' })).toBe('the server closed the connection (Server shutting down.)');
  });

  it('keeps the library words when the server sent no BYE', () => {
    expect(sessionProblem(noMailbox, { byeReason: undefined })).toBe('No mailbox is selected');
    expect(sessionProblem(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:993'), { code: 'ESOCKET' }), { byeReason: 'Server shutting down.' })).toBe(
      'connection refused (connect ECONNREFUSED 127.0.0.1:993)',
    );
  });
});
