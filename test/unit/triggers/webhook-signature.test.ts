import { describe, expect, it } from 'vitest';
import { signatureHeader, verifyWebhookSignature, WEBHOOK_TOLERANCE_SECONDS } from '../../../src/triggers/webhook-signature.ts';

// docs/automations.md, "Webhooks": X-Deskflow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>.

const secret = 'whsec_test';
const body = '{"topic":"billing"}';
const now = 1_800_000_000;
const verify = (header: string | undefined, rawBody = body, nowSeconds = now) =>
  verifyWebhookSignature({ header, secret, rawBody: Buffer.from(rawBody), nowSeconds });

describe('webhook signature', () => {
  it('accepts the header a sender computes, also among other v1 entries and with spaces', () => {
    const header = signatureHeader(secret, body, now);
    expect(verify(header)).toBeNull();
    const v1 = header.split('v1=')[1];
    expect(verify(`t=${now}, v1=${'0'.repeat(64)}, v1=${v1}`)).toBeNull();
  });

  it('accepts a timestamp up to the tolerance away from the clock, either way', () => {
    for (const skew of [-WEBHOOK_TOLERANCE_SECONDS, WEBHOOK_TOLERANCE_SECONDS]) expect(verify(signatureHeader(secret, body, now + skew))).toBeNull();
  });

  it.each([
    ['no header', undefined, /missing or malformed/],
    ['no timestamp', `v1=${'a'.repeat(64)}`, /missing or malformed/],
    ['a v1 that is not 64 hex digits', `t=${now},v1=abc`, /missing or malformed/],
    ['a timestamp too old', signatureHeader(secret, body, now - WEBHOOK_TOLERANCE_SECONDS - 1), /more than 300 s away/],
    ['a timestamp too far ahead', signatureHeader(secret, body, now + WEBHOOK_TOLERANCE_SECONDS + 1), /more than 300 s away/],
    ['another secret', signatureHeader('other-secret', body, now), /does not match/],
    ['a signature of another body', signatureHeader(secret, '{"topic":"sales"}', now), /does not match/],
  ])('refuses %s, saying why', (_case, header, reason) => {
    expect(verify(header)).toMatch(reason);
  });
});
