import type { Context, Next } from 'koa';
import { unauthorized } from '../errors.ts';
import type { WorkspaceService } from '../workspaces/service.ts';
import type { RateLimiter } from './rate-limit.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Resolves `Authorization: Bearer <key>` to the key's workspace (ctx.state.workspaceId), then rate-limits per key. */
export function authenticate(workspaces: (ctx: Context) => WorkspaceService, limiter: RateLimiter) {
  return async function requireApiKey(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    const match = BEARER.exec(header);
    if (!match) throw unauthorized();
    const workspaceId = await workspaces(ctx).authenticate(match[1]);
    if (!workspaceId) throw unauthorized('The API key is unknown or revoked.');
    limiter.take(match[1].slice(0, 20));
    ctx.state.workspaceId = workspaceId;
    await next();
  };
}
