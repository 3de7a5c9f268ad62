import { ConnectionException, DriverException } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { isOutage, isOutageOrUnanswered } from '../../../src/common/outage.ts';
import { AppError, notFound, unavailable } from '../../../src/errors.ts';

const withCode = (code: string) => Object.assign(new Error(`failed (${code})`), { code });

describe('the outage rule', () => {
  it('waits out a dependency that cannot be reached: connection and socket errors, a server going away, out of connections or too slow', () => {
    expect(isOutage(new ConnectionException(new Error('connect ECONNREFUSED 127.0.0.1:5432')))).toBe(true);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '08006', '08001', '57P01', '57P03', '53300', '57014']) {
      expect(isOutage(withCode(code)), code).toBe(true);
    }
    expect(isOutage(unavailable('The workflow engine is unavailable; retry later.'))).toBe(true);
  });

  it('looks through causes, and a driver error without any SQLSTATE is the client giving up on its connection', () => {
    expect(isOutage(new Error('wrapped', { cause: withCode('ECONNRESET') }))).toBe(true);
    expect(isOutage(new DriverException(new Error('Connection terminated unexpectedly')))).toBe(true);
  });

  it('is a real failure when the error is about the work itself: a SQLSTATE of the statement, a protocol violation, an answer already decided, a bare error', () => {
    for (const code of ['23505', '22P02', '40001', '08P01']) expect(isOutage(withCode(code)), code).toBe(false);
    expect(isOutage(notFound('Ticket'))).toBe(false);
    expect(isOutage(new AppError(500, 'internal_error', 'boom'))).toBe(false);
    expect(isOutage(new Error('Connection terminated'))).toBe(false);
    expect(isOutage(undefined)).toBe(false);
  });

  it('settles an error that says nothing of its cause by asking the database', async () => {
    const bare = new Error('Client has encountered a connection error and is not queryable');
    expect(await isOutageOrUnanswered(bare, async () => false)).toBe(true);
    expect(await isOutageOrUnanswered(bare, async () => true)).toBe(false);
    expect(await isOutageOrUnanswered(bare)).toBe(false);
    expect(await isOutageOrUnanswered(notFound('Ticket'), async () => false)).toBe(false);
    expect(await isOutageOrUnanswered(withCode('57P01'), async () => true)).toBe(true);
  });
});
