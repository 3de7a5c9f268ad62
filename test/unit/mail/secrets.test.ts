import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSecretKey, resolveSecretKey, SecretBox, SecretKeyError } from '../../../src/mail/secrets.ts';

// Mailbox credentials at rest: AES-256-GCM, bound to their row and field.

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals so that the plaintext does not show and opens it again', () => {
    const sealed = box.seal('hunter2', 'mailbox:1:imap');
    expect(sealed).not.toContain('hunter2');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(box.open(sealed, 'mailbox:1:imap')).toBe('hunter2');
    // A fresh IV each time: two seals of one secret differ.
    expect(box.seal('hunter2', 'mailbox:1:imap')).not.toBe(sealed);
  });

  it('refuses a value moved to another mailbox or field, a changed value and another key', () => {
    const sealed = box.seal('hunter2', 'mailbox:1:imap');
    expect(() => box.open(sealed, 'mailbox:2:imap')).toThrow(/does not open/);
    expect(() => box.open(sealed, 'mailbox:1:smtp')).toThrow(SecretKeyError);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('hunter3').toString('base64url');
    expect(() => box.open(parts.join('.'), 'mailbox:1:imap')).toThrow(/does not open/);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'mailbox:1:imap')).toThrow(/sealed with another key/);
  });

  it('keeps credentials of both kinds', () => {
    const oauth = { kind: 'oauth2' as const, accessToken: 'ya29.token', expiresAt: null };
    expect(box.openCredential(box.sealCredential(oauth, 'c'), 'c')).toEqual(oauth);
    expect(box.openCredential(box.sealCredential({ kind: 'password', password: 'p' }, 'c'), 'c')).toEqual({ kind: 'password', password: 'p' });
  });
});

describe('the key', () => {
  it('takes 32 bytes as base64 or hex and refuses anything else', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('base64'), 'K')).toEqual(key);
    expect(parseSecretKey(key.toString('hex'), 'K')).toEqual(key);
    expect(() => parseSecretKey('short', 'DESKFLOW_SECRET_KEY')).toThrow(/DESKFLOW_SECRET_KEY must be 32 random bytes/);
    expect(() => parseSecretKey(randomBytes(16).toString('base64'), 'K')).toThrow(SecretKeyError);
  });

  it('is made once in the data directory with the embedded defaults, readable by its owner only', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deskflow-key-'));
    try {
      const first = resolveSecretKey({ secretKey: undefined, databaseUrl: undefined, dataDir });
      const second = resolveSecretKey({ secretKey: undefined, databaseUrl: undefined, dataDir });
      expect(second).toEqual(first);
      expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is required with DATABASE_URL, and DESKFLOW_SECRET_KEY wins over the file', () => {
    expect(() => resolveSecretKey({ secretKey: undefined, databaseUrl: 'postgres://x', dataDir: '/nonexistent' })).toThrow(/DESKFLOW_SECRET_KEY is not set/);
    const key = randomBytes(32);
    expect(resolveSecretKey({ secretKey: key.toString('base64'), databaseUrl: 'postgres://x', dataDir: '/nonexistent' })).toEqual(key);
  });
});
