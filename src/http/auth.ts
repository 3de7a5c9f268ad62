import type { Context, Next } from 'koa';
import { unauthorized } from '../errors.ts';
import type { KeyAuthenticator } from '../workspaces/key-cache.ts';
import type { KeyUsageRecorder } from '../workspaces/key-usage.ts';
import type { RateLimiter } from './rate-limit.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Resolves `Authorization: Bearer <key>` to the key's workspace (ctx.state.workspaceId), then
 * rate-limits per key and notes the key's use (`usage`, at most once a minute per key).
 */
export function authenticate(keys: KeyAuthenticator, limiter: RateLimiter, usage?: KeyUsageRecorder) {
  async function requireApiKey(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    const match = BEARER.exec(header);
    if (!match) throw unauthorized();
    const workspaceId = await keys.authenticate(ctx.state.services.em, match[1]);
    if (!workspaceId) throw unauthorized('The API key is unknown or revoked.');
    limiter.take(match[1].slice(0, 20));
    ctx.state.workspaceId = workspaceId;
    usage?.record(match[1]);
    await next();
  }
  // The OpenAPI document marks the routes behind this middleware as needing the key (isApiKeyCheck).
  return Object.assign(requireApiKey, { [API_KEY_CHECK]: true });
}

const API_KEY_CHECK = Symbol('apiKeyCheck');

/** True for the middleware authenticate() returns. */
export const isApiKeyCheck = (mw: unknown): boolean => (mw as { [API_KEY_CHECK]?: boolean })[API_KEY_CHECK] === true;
