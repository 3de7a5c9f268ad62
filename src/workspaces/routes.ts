import Router from '@koa/router';
import { z } from 'zod';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { MEMBER_ROLES } from './entity.ts';

const publicMember = z.strictObject({ userId: z.string(), role: z.enum(MEMBER_ROLES) }).meta({ id: 'Member' });

/** The workspace's people, for pickers (assignees, approvers, who decides); mounted under /api/members, behind the API key (app.ts). */
export function memberRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const list = operation({
    operationId: 'listMembers',
    summary: 'List members',
    description: 'The current members and admins of the key\'s workspace, ordered by user id. The admin CLI adds and removes them.',
    responses: { 200: { description: 'The members.', schema: z.strictObject({ members: z.array(publicMember) }) } },
  });
  router.get('/', list, async (ctx) => {
    const members = await ctx.state.services.workspaces.listMembers(ctx.state.workspaceId);
    ctx.body = { members: members.map((m) => ({ userId: m.userId, role: m.role })).sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0)) };
  });
  return router;
}
