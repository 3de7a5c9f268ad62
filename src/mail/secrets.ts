import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Mailbox credentials at rest: AES-256-GCM (node:crypto) under a key of 32 bytes from
 * DESKFLOW_SECRET_KEY, or, with the embedded defaults (no DATABASE_URL), from a key file made
 * in the data directory on first use. Each sealed value is bound to the row and field it
 * belongs to (additional authenticated data), so a value copied to another mailbox does not
 * open. Secrets are never logged and never leave through the API or the CLI.
 */

/** What a mailbox authenticates with: a password today; an OAuth2 access token (Microsoft 365, Gmail) has its place. */
export type MailCredential = { kind: 'password'; password: string } | { kind: 'oauth2'; accessToken: string; expiresAt: string | null };

export const KEY_FILE_NAME = 'secret.key';
const FORMAT = 'v1';

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** 32 bytes from base64 (44 characters, as `openssl rand -base64 32` prints) or 64 hexadecimal digits. */
export function parseSecretKey(value: string, source: string): Buffer {
  const s = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(s) ? Buffer.from(s, 'hex') : /^[A-Za-z0-9+/_-]{42,43}={0,2}$/.test(s) ? Buffer.from(s, 'base64') : null;
  if (!key || key.length !== 32) {
    throw new SecretKeyError(`${source} must be 32 random bytes, as base64 or 64 hexadecimal digits (make one with: openssl rand -base64 32).`);
  }
  return key;
}

/**
 * The key: DESKFLOW_SECRET_KEY when set; else, on the embedded database, the key file of the
 * data directory (created, readable by its owner only, when there is none). With DATABASE_URL
 * and no key every process could make a key of its own that the others cannot read with: refused.
 */
export function resolveSecretKey(config: { secretKey: string | undefined; databaseUrl: string | undefined; dataDir: string }): Buffer {
  if (config.secretKey) return parseSecretKey(config.secretKey, 'DESKFLOW_SECRET_KEY');
  if (config.databaseUrl) {
    throw new SecretKeyError(
      'DESKFLOW_SECRET_KEY is not set: with DATABASE_URL, every Deskflow process (API, worker, admin CLI) needs the same key to read mailbox passwords. Make one with: openssl rand -base64 32',
    );
  }
  const file = path.join(config.dataDir, KEY_FILE_NAME);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx': two processes starting at once cannot both write a key; the second reads the first's.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return parseSecretKey(fs.readFileSync(file, 'utf8'), `The key file ${file}`);
}

/** Seals and opens secrets with one key; a value sealed under another key says so instead of failing obscurely. */
export class SecretBox {
  private readonly key: Buffer;
  private readonly keyId: string;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('The secret key must be 32 bytes.');
    this.key = key;
    this.keyId = createHash('sha256').update('deskflow key id').update(key).digest('hex').slice(0, 8);
  }

  /** `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url), bound to `context` (e.g. `mailbox:<id>:imap`). */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [FORMAT, this.keyId, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [format, keyId, iv, tag, ciphertext] = sealed.split('.');
    if (format !== FORMAT || ciphertext === undefined) throw new SecretKeyError('A stored secret is not in a format this Deskflow reads.');
    if (keyId !== this.keyId) {
      throw new SecretKeyError('A stored secret was sealed with another key: set the DESKFLOW_SECRET_KEY (or the data directory) it was saved with, or add the mailbox again.');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('A stored secret does not open: it was changed or belongs to another mailbox.');
    }
  }

  sealCredential(credential: MailCredential, context: string): string {
    return this.seal(JSON.stringify(credential), context);
  }

  openCredential(sealed: string, context: string): MailCredential {
    const value = JSON.parse(this.open(sealed, context)) as MailCredential;
    if (value.kind !== 'password' && value.kind !== 'oauth2') throw new SecretKeyError('A stored credential is of an unknown kind.');
    return value;
  }
}

/** The SecretBox of a process, made on first use (a process without mailboxes needs no key). */
export function secretsFor(config: { secretKey: string | undefined; databaseUrl: string | undefined; dataDir: string }): () => SecretBox {
  let box: SecretBox | undefined;
  return () => (box ??= new SecretBox(resolveSecretKey(config)));
}
