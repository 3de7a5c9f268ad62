import { createHmac, timingSafeEqual } from 'node:crypto';

/** A signature older or newer than this is refused (docs/automations.md, "Webhooks"). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Checks `X-Deskflow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Several v1 entries may be given (one must match). Returns null when valid, else the reason.
 */
export function verifyWebhookSignature(opts: { header: string | undefined; secret: string; rawBody: Buffer; nowSeconds: number }): string | null {
  const parts = parseHeader(opts.header);
  if (!parts) return 'missing or malformed X-Deskflow-Signature header (expected t=<unix seconds>,v1=<hex>)';
  if (Math.abs(opts.nowSeconds - parts.t) > WEBHOOK_TOLERANCE_SECONDS) {
    return `signature timestamp is more than ${WEBHOOK_TOLERANCE_SECONDS} s away from the server's clock`;
  }
  const expected = signatureFor(opts.secret, parts.t, opts.rawBody);
  const ok = parts.v1.some((given) => {
    const buf = Buffer.from(given, 'hex');
    return buf.length === expected.length && timingSafeEqual(buf, expected);
  });
  return ok ? null : 'signature does not match';
}

export function signatureFor(secret: string, t: number, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}

/** The header value a sender computes (used by tests and documented in docs/automations-tutorial.md). */
export function signatureHeader(secret: string, rawBody: string | Buffer, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${signatureFor(secret, t, Buffer.from(rawBody)).toString('hex')}`;
}

function parseHeader(header: string | undefined): { t: number; v1: string[] } | null {
  if (!header) return null;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value ?? '')) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value ?? '')) v1.push(value);
  }
  return t === undefined || v1.length === 0 ? null : { t, v1 };
}
