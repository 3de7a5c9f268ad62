import { describe, expect, it } from 'vitest';
import { connectionProblem } from '../../../src/mail/connections.ts';

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
